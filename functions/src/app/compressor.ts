import { compressHistory, HistoryTooSmallError } from "../agent/compressor.js";
import { ConfigError, ConflictError, NotFoundError } from "../domain/errors.js";
import { addUsage } from "../domain/results.js";
import type { StepHistory, StepHistoryDraft, StepHistoryStore } from "../ports/step-history-store.js";
import type { AppDeps } from "./deps.js";
import { publishEvents } from "./publish.js";

/**
 * Compressions one step may go through. The workflow runs a step at most this many times
 * plus one; the step executor fails the step when its context is full again after the
 * last one, so the bound holds even if the workflow's loop changes.
 */
export const MAX_COMPRESSIONS_PER_STEP = 2;

export interface CompressStepOutcome {
  stepId: string;
  compressed: boolean;
  compressions: number;
  /** Why nothing was compressed. */
  reason?: string;
  bytesBefore?: number;
  bytesAfter?: number;
  iocs?: number;
  appendedIocs?: number;
  summarizedBy?: "model" | "rules";
}

/**
 * The compressor function's operation: summarizes the saved history of a step that
 * stopped for context pressure and persists the result before answering, so the re-run
 * of the step reads the compressed history. Idempotent: without pending pressure (a
 * repeated call, or the step already finished) it changes nothing.
 */
export async function runCompressor(id: string, stepId: string, deps: AppDeps): Promise<CompressStepOutcome> {
  const histories = requireHistories(deps);
  if (await deps.store.getStepResult(id, stepId)) {
    return { stepId, compressed: false, compressions: 0, reason: "the step already has its result" };
  }
  const history = await histories.get(id, stepId);
  if (!history) throw new NotFoundError(`step "${stepId}" of investigation ${id} has no saved history`);
  const pressure = history.pressure;
  if (!pressure) {
    return {
      stepId,
      compressed: false,
      compressions: history.compressions,
      reason: "no compression pending",
    };
  }
  if (history.compressions >= MAX_COMPRESSIONS_PER_STEP) {
    return exhaust(histories, id, history, `the step was compressed ${history.compressions} times already`);
  }
  let outcome: Awaited<ReturnType<typeof compressHistory>>;
  try {
    outcome = await compressHistory({ messages: history.messages, model: deps.model, investigationId: id });
  } catch (error) {
    if (error instanceof HistoryTooSmallError) return exhaust(histories, id, history, error.message);
    throw error;
  }
  const compressions = history.compressions + 1;
  try {
    await histories.put(
      id,
      { ...draftOf(history), messages: outcome.messages, compressions },
      history.revision,
    );
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const now = await histories.get(id, stepId);
    if (now && now.compressions > history.compressions && !now.pressure) {
      return {
        stepId,
        compressed: false,
        compressions: now.compressions,
        reason: "compressed by a concurrent call",
      };
    }
    throw error;
  }
  deps.logger.info("step history compressed", {
    stepId,
    compressions,
    bytesBefore: outcome.bytes.before,
    bytesAfter: outcome.bytes.after,
    iocs: outcome.iocs.length,
    appendedIocs: outcome.appended.length,
    summarizedBy: outcome.summarizedBy,
    ...(outcome.rulesBecause ? { rulesBecause: outcome.rulesBecause } : {}),
  });
  const committed = await deps.store.update(id, (current) => ({
    investigation: {
      ...current,
      counters: { ...current.counters, usage: addUsage(current.counters.usage, outcome.usage) },
      updatedAt: deps.now().toISOString(),
    },
    events: [
      {
        type: "compressed",
        stepId,
        message: `Step ${stepId}: ${outcome.replacedMessages} older messages summarized (${outcome.bytes.before} → ${outcome.bytes.after} bytes, ${outcome.iocs.length} indicators kept${outcome.appended.length ? `, ${outcome.appended.length} re-added verbatim` : ""}) after: ${pressure.reason}`,
      },
    ],
  }));
  await publishEvents(deps.bus, committed.events);
  return {
    stepId,
    compressed: true,
    compressions,
    bytesBefore: outcome.bytes.before,
    bytesAfter: outcome.bytes.after,
    iocs: outcome.iocs.length,
    appendedIocs: outcome.appended.length,
    summarizedBy: outcome.summarizedBy,
  };
}

/** Compression cannot help: the next run of the step fails at once with this reason. */
async function exhaust(
  histories: StepHistoryStore,
  id: string,
  history: StepHistory,
  reason: string,
): Promise<CompressStepOutcome> {
  const exhausted = `the step's context window is exhausted: ${reason}`;
  await histories.put(id, { ...draftOf(history), exhausted }, history.revision);
  return { stepId: history.stepId, compressed: false, compressions: history.compressions, reason: exhausted };
}

function draftOf(history: StepHistory): StepHistoryDraft {
  const { revision: _r, updatedAt: _u, pressure: _p, ...draft } = history;
  return draft;
}

function requireHistories(deps: AppDeps): StepHistoryStore {
  if (!deps.histories) throw new ConfigError("this process has no step-history store; compression needs one");
  return deps.histories;
}
