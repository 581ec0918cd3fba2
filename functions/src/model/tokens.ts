import type { GenerateRequest, GenerateResponse } from "./port.js";

/**
 * A rough, documented token estimate: one token per four characters of serialized text,
 * rounded up. It is what Gemini's docs quote as the English average; it is only used by
 * adapters that have no tokenizer (scripted, offline), so budgets and benchmarks see
 * plausible, deterministic numbers rather than zero.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Everything the provider would read: system, messages, tool declarations, schema. */
export function estimateInputTokens(request: GenerateRequest): number {
  const { system, messages, tools, responseSchema } = request;
  return estimateTokens(JSON.stringify({ system, messages, tools, responseSchema }));
}

export function estimateOutputTokens(response: Pick<GenerateResponse, "text" | "toolCalls">): number {
  const calls = response.toolCalls.length > 0 ? JSON.stringify(response.toolCalls) : "";
  return estimateTokens((response.text ?? "") + calls);
}
