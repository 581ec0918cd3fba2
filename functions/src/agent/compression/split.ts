import { jsonBytes } from "../../domain/json.js";
import type { Message } from "../../model/port.js";
import { HistoryTooSmallError } from "./errors.js";
import { isSummaryMessage } from "./summary-message.js";

/** Share of the history's bytes summarized by default; the newest rest stays verbatim. */
export const DEFAULT_COMPRESS_SHARE = 0.7;

export interface HistorySplit {
  /** The oldest messages, to be summarized. */
  compressed: Message[];
  /** The newest messages, kept verbatim; never starts with tool responses. */
  kept: Message[];
  bytes: { compressed: number; kept: number; total: number };
}

/**
 * Splits a history where the JSON bytes of the messages before the cut first reach
 * `share` of the total. A cut is only allowed before a model or user message: a tool
 * message answers the model message before it (Gemini rejects responses without their
 * call), so the pair always lands on the same side. At least one message is kept.
 */
export function splitHistory(messages: readonly Message[], share = DEFAULT_COMPRESS_SHARE): HistorySplit {
  if (!(share > 0 && share < 1)) throw new RangeError(`share must be between 0 and 1, got ${share}`);
  const sizes = messages.map((m) => jsonBytes(m));
  const total = sizes.reduce((a, b) => a + b, 0);
  const prefix: number[] = [0];
  for (const size of sizes) prefix.push((prefix.at(-1) ?? 0) + size);

  const cuts: number[] = [];
  for (let k = 1; k < messages.length; k++) {
    if (messages[k]?.role === "tool") continue;
    // Re-summarizing a lone earlier summary would only paraphrase it.
    if (k === 1 && isSummaryMessage(messages[0])) continue;
    cuts.push(k);
  }
  if (cuts.length === 0) {
    throw new HistoryTooSmallError(
      `a history of ${messages.length} message(s) (${total} bytes) has nothing to summarize: it needs an older part and a newer tool exchange to keep`,
      { messages: messages.length, bytes: total },
    );
  }
  const target = share * total;
  const cut = cuts.find((k) => (prefix[k] ?? 0) >= target) ?? (cuts.at(-1) as number);
  const compressedBytes = prefix[cut] ?? 0;
  return {
    compressed: messages.slice(0, cut),
    kept: messages.slice(cut),
    bytes: { compressed: compressedBytes, kept: total - compressedBytes, total },
  };
}
