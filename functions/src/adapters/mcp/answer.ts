import type { JsonObject, JsonValue } from "../../domain/json.js";
import type { ToolOutput } from "../../tools/port.js";

/** The parts of an MCP CallToolResult ferret reads (the SDK's type, narrowed). */
export interface McpCallResult {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

function cut(text: string, budget: number): { text: string; cut: boolean } {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= budget) return { text, cut: false };
  // Slice by characters, then trim until the UTF-8 size fits (multi-byte safe).
  let kept = text.slice(0, budget);
  while (Buffer.byteLength(kept, "utf8") > budget) kept = kept.slice(0, -1);
  return { text: kept, cut: true };
}

/**
 * An MCP server's answer as a tool output. Everything the server wrote is untrusted data:
 * it travels only in `data`, labelled with its source and capped at `maxBytes`; the summary
 * later steps and people read is written here, from counts, never from the server's text.
 */
export function toToolOutput(
  qualified: string,
  server: string,
  result: McpCallResult,
  maxBytes: number,
): ToolOutput {
  let budget = maxBytes;
  let truncated = false;
  const text: string[] = [];
  const skipped: string[] = [];
  for (const part of result.content ?? []) {
    if (part.type !== "text" || typeof part.text !== "string") {
      skipped.push(part.type);
      continue;
    }
    const kept = cut(part.text, budget);
    if (kept.text.length > 0) text.push(kept.text);
    budget -= Buffer.byteLength(kept.text, "utf8");
    truncated ||= kept.cut;
    if (budget <= 0) break;
  }
  let structured: JsonValue | undefined;
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    if (Buffer.byteLength(json, "utf8") <= budget) structured = result.structuredContent as JsonObject;
    else {
      structured = { truncated: true, preview: cut(json, Math.max(0, budget)).text };
      truncated = true;
    }
  }
  const bytes = maxBytes - Math.max(0, budget);
  const failed = result.isError === true;
  return {
    ok: !failed,
    summary:
      `${qualified} ${failed ? "reported an error" : "answered"}: ${text.length} text part(s)` +
      `${structured !== undefined ? " and structured content" : ""}, ${bytes} bytes` +
      `${truncated ? ` (cut at ${maxBytes} bytes)` : ""}${skipped.length ? `; ${skipped.length} non-text part(s) left out` : ""}`,
    data: {
      source: `MCP server ${server}`,
      untrusted: true,
      text,
      ...(structured !== undefined ? { structured } : {}),
      ...(truncated ? { truncated: true } : {}),
    },
  };
}
