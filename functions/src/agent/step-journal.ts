import type { FerretError } from "../domain/errors.js";
import type { Ioc } from "../domain/ioc.js";
import type { ToolCall, Usage } from "../domain/results.js";
import type { Message } from "../model/port.js";
import type { StepHistory, StepHistoryStore } from "../ports/step-history-store.js";
import { ContextExhaustedError, ContextPressureError, HistoryTooSmallError } from "./compression/errors.js";
import { splitHistory } from "./compression/split.js";

/** What the tool-calling loop needs to continue where an earlier run of the step stopped. */
export interface StepExecutorState {
  messages: Message[];
  toolCalls: ToolCall[];
  toolIocs: Ioc[];
  usage: Usage;
  /** Tool rounds completed. */
  iterations: number;
  startedAt: string;
}

/**
 * The step executor's durable memory for one step. Kept behind this interface so the loop
 * stays a loop: it resumes, saves after every tool round, and asks what to do when the
 * context fills up.
 */
export interface StepJournal {
  resume(): Promise<StepExecutorState | undefined>;
  save(state: StepExecutorState): Promise<void>;
  /** True when a request's reported input passed the preventive compression threshold. */
  overBudget(inputTokens: number): boolean;
  /**
   * Saves the state as waiting for compression and returns the error the loop throws:
   * ContextPressureError when compressing can help, ContextExhaustedError when it cannot.
   */
  pressure(state: StepExecutorState, cause: { reason: string; inputTokens?: number }): Promise<FerretError>;
}

export interface StepJournalOptions {
  store: StepHistoryStore;
  investigationId: string;
  stepId: string;
  contextWindowTokens: number;
  /** Share of the window at which the loop stops for compression before the provider refuses. */
  compressAt: number;
  maxCompressions: number;
  now: () => Date;
}

export function createStepJournal(options: StepJournalOptions): StepJournal {
  let stored: StepHistory | undefined;
  const threshold = options.compressAt * options.contextWindowTokens;

  const write = async (state: StepExecutorState, extra: Pick<StepHistory, "pressure">): Promise<void> => {
    stored = await options.store.put(
      options.investigationId,
      {
        stepId: options.stepId,
        messages: state.messages,
        toolCalls: state.toolCalls,
        toolIocs: state.toolIocs,
        usage: state.usage,
        iterations: state.iterations,
        startedAt: state.startedAt,
        compressions: stored?.compressions ?? 0,
        ...(extra.pressure ? { pressure: extra.pressure } : {}),
      },
      stored?.revision ?? 0,
    );
  };

  return {
    async resume() {
      stored = await options.store.get(options.investigationId, options.stepId);
      if (!stored) return undefined;
      if (stored.exhausted) throw new ContextExhaustedError(stored.exhausted, { stepId: options.stepId });
      return {
        messages: stored.messages,
        toolCalls: stored.toolCalls,
        toolIocs: stored.toolIocs,
        usage: stored.usage,
        iterations: stored.iterations,
        startedAt: stored.startedAt,
      };
    },

    save: (state) => write(state, {}),

    overBudget: (inputTokens) => inputTokens >= threshold,

    async pressure(state, cause) {
      const compressions = stored?.compressions ?? 0;
      if (compressions >= options.maxCompressions) {
        await write(state, {});
        return new ContextExhaustedError(
          `the step's context is still too large after ${compressions} compression(s) (${cause.reason})`,
          { stepId: options.stepId, compressions },
        );
      }
      try {
        splitHistory(state.messages);
      } catch (error) {
        if (!(error instanceof HistoryTooSmallError)) throw error;
        await write(state, {});
        return new ContextExhaustedError(
          `the step's context is too large (${cause.reason}) and ${error.message}`,
          {
            stepId: options.stepId,
          },
        );
      }
      const at = options.now().toISOString();
      await write(state, {
        pressure: {
          reason: cause.reason,
          ...(cause.inputTokens !== undefined ? { inputTokens: cause.inputTokens } : {}),
          at,
        },
      });
      return new ContextPressureError(
        options.stepId,
        `step ${options.stepId} needs compression: ${cause.reason}`,
        {
          compressions,
        },
      );
    },
  };
}
