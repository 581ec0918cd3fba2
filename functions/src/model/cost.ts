import type { Price } from "../config/model-settings.js";
import type { Usage } from "../domain/results.js";

const PER_MILLION = 1_000_000;

/**
 * Estimated USD of one call: fresh input at the input rate, the cached part of the prompt at
 * the cached rate, answer and thinking at the output rate. Undefined without a price, so an
 * unknown model shows "no price" rather than a made-up $0.
 */
export function estimateCostUsd(usage: Usage, price: Price | undefined): number | undefined {
  if (!price) return undefined;
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  return (fresh * price.input + cached * price.cachedInput + usage.outputTokens * price.output) / PER_MILLION;
}

/** The price for a model id, also when the provider reports a dated version ("…-001", "models/…"). */
export function priceOf(prices: Readonly<Record<string, Price>>, model: string): Price | undefined {
  const id = model.replace(/^.*\//, "");
  return prices[id] ?? prices[id.replace(/-\d{3}$/, "")];
}

/** "$0.0123" for the CLI, the Slack footer and the bench; cents are too coarse for one call. */
export function formatUsd(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/**
 * One line: "14 model calls · 52,310 tokens in (12,288 cached) · 3,904 out (1,210 thinking) · ≈ $0.1140".
 * A run of the offline playbook model alone reads "3 offline playbook calls · no LLM, no tokens,
 * no cost": it has none to report (issue 29).
 */
export function describeUsage(usage: Usage, options: { offline?: boolean } = {}): string {
  const n = (value: number) => value.toLocaleString("en-US");
  if (options.offline && usage.inputTokens + usage.outputTokens === 0 && usage.costUsd === undefined) {
    return `${n(usage.llmCalls)} offline playbook call${usage.llmCalls === 1 ? "" : "s"} · no LLM, no tokens, no cost`;
  }
  const cached = usage.cachedInputTokens ? ` (${n(usage.cachedInputTokens)} cached)` : "";
  const thinking = usage.thinkingTokens ? ` (${n(usage.thinkingTokens)} thinking)` : "";
  const cost = usage.costUsd !== undefined ? ` · ≈ ${formatUsd(usage.costUsd)}` : "";
  return `${n(usage.llmCalls)} model calls · ${n(usage.inputTokens)} tokens in${cached} · ${n(usage.outputTokens)} out${thinking}${cost}`;
}
