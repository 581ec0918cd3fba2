import { FerretError } from "../domain/errors.js";
import type { Ioc } from "../domain/ioc.js";
import { jsonBytes } from "../domain/json.js";
import { type Usage, ZERO_USAGE } from "../domain/results.js";
import type { Message, Model } from "../model/port.js";
import { type RenderedPrompt, renderPrompt } from "../prompts/render.js";
import { briefRequest, type CompressorBrief } from "./briefs.js";
import { HistoryTooSmallError } from "./compression/errors.js";
import { historyIocs, missingIocs } from "./compression/iocs.js";
import { offlineSummary } from "./compression/offline-summary.js";
import { DEFAULT_COMPRESS_SHARE, splitHistory } from "./compression/split.js";
import { summaryMessage } from "./compression/summary-message.js";

export { HistoryTooSmallError } from "./compression/errors.js";

export interface CompressInput {
  messages: readonly Message[];
  model: Model;
  investigationId?: string;
  /** Share of the history's bytes to summarize; default 0.7. */
  share?: number;
  /** Asked of the model; the summary is not cut, the IOC list after it must stay whole. */
  maxSummaryWords?: number;
}

export interface CompressionOutcome {
  /** The summary message followed by the kept messages, verbatim. */
  messages: Message[];
  summarizedBy: "model" | "rules";
  /** Why the rules wrote the summary when a model was available. */
  rulesBecause?: string;
  /** Every IOC of the summarized part. */
  iocs: Ioc[];
  /** Those the summary text lacked, appended to it by code. */
  appended: Ioc[];
  replacedMessages: number;
  bytes: { before: number; after: number; summarized: number; summary: number };
  usage: Usage;
  model: string;
}

const DEFAULT_SUMMARY_WORDS = 800;

/**
 * Replaces the oldest ~70% (by JSON bytes) of a step's history with one summary message.
 * The summary comes from the model with a security-focused prompt, or from rules when the
 * model is offline or cannot answer; either way every IOC of the replaced messages is
 * checked in code and the missing ones are appended verbatim, so compression never loses
 * an indicator. A history that cannot be split, or whose summary would not be smaller
 * than what it replaces, raises HistoryTooSmallError.
 */
export async function compressHistory(input: CompressInput): Promise<CompressionOutcome> {
  const split = splitHistory(input.messages, input.share ?? DEFAULT_COMPRESS_SHARE);
  const iocs = historyIocs(split.compressed);
  const written = await summarize(input, split.compressed, iocs);

  const draft = (appended: readonly Ioc[]) =>
    summaryMessage({
      summary: written.text,
      replacedMessages: split.compressed.length,
      replacedBytes: split.bytes.compressed,
      appended,
    });
  const appended = missingIocs(iocs, [draft([]), ...split.kept]);
  const head = draft(appended);
  const messages = [head, ...split.kept];
  const lost = missingIocs(iocs, messages);
  if (lost.length > 0) {
    // Unreachable unless extraction stops being stable on its own output: fail loudly.
    throw new Error(`compression would lose IOCs: ${lost.map((i) => `${i.type}:${i.value}`).join(", ")}`);
  }
  const summaryBytes = jsonBytes(head);
  if (summaryBytes >= split.bytes.compressed) {
    throw new HistoryTooSmallError(
      `summarizing ${split.compressed.length} message(s) of ${split.bytes.compressed} bytes gives ${summaryBytes} bytes: nothing to gain`,
      { summarized: split.bytes.compressed, summary: summaryBytes },
    );
  }
  return {
    messages,
    summarizedBy: written.by,
    ...(written.because ? { rulesBecause: written.because } : {}),
    iocs,
    appended,
    replacedMessages: split.compressed.length,
    bytes: {
      before: split.bytes.total,
      after: jsonBytes(messages),
      summarized: split.bytes.compressed,
      summary: summaryBytes,
    },
    usage: written.usage,
    model: written.model,
  };
}

interface Written {
  text: string;
  by: "model" | "rules";
  because?: string;
  usage: Usage;
  model: string;
}

async function summarize(input: CompressInput, compressed: Message[], iocs: Ioc[]): Promise<Written> {
  const rules = (because?: string, usage: Usage = ZERO_USAGE): Written => ({
    text: offlineSummary(compressed),
    by: "rules",
    ...(because ? { because } : {}),
    usage,
    model: "rules",
  });
  // The offline playbook model reasons over briefs and writes no summaries.
  if (input.model.offline) return rules();
  // Thought signatures are provider state for replaying the calls, not content to summarize.
  const shown = compressed.map(withoutSignatures);
  const brief: CompressorBrief = {
    role: "compressor",
    messages: shown,
    iocs,
    maxWords: input.maxSummaryWords ?? DEFAULT_SUMMARY_WORDS,
  };
  try {
    const response = await input.model.generate(briefRequest(brief, compressorPrompt, input.investigationId));
    const text = response.text?.trim();
    if (!text) return rules(`${response.model} returned no summary text`, response.usage);
    return { text, by: "model", usage: response.usage, model: response.model };
  } catch (error) {
    // Outages are worth a retry of the whole call; a refusal (token limit, bad output, a
    // fallback model without summary rules) is not, and the rules can still do the job.
    if (error instanceof FerretError && !error.retryable) return rules(error.message);
    throw error;
  }
}

function withoutSignatures(message: Message): Message {
  if (message.role !== "model" || !message.toolCalls?.some((c) => c.signature)) return message;
  return { ...message, toolCalls: message.toolCalls.map(({ signature: _state, ...call }) => call) };
}

/** The compressor's prompt, rendered from its brief alone. */
export function compressorPrompt(brief: CompressorBrief): RenderedPrompt {
  return {
    system: renderPrompt("compressor.system", { maxWords: brief.maxWords }),
    user: renderPrompt("compressor.user", {
      messages: brief.messages,
      iocs: brief.iocs,
      messageCount: brief.messages.length,
    }),
  };
}
