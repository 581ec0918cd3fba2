import type { JsonObject } from "../../domain/json.js";
import type { Message } from "../../model/port.js";
import { isSummaryMessage, SUMMARY_MARKER } from "./summary-message.js";

const MAX_TASK_CHARS = 4_000;
const MAX_LINE_CHARS = 400;

/**
 * A summary without an LLM, for the offline model (which reasons over briefs
 * and has no rules for free-form summaries) and as the fallback when the model's summary
 * call fails. It keeps the task text, every tool call with its outcome line and the
 * model's own notes; raw tool output is dropped, and the IOC check adds its indicators.
 */
export function offlineSummary(messages: readonly Message[]): string {
  const out: string[] = ["Summary written by rules (no LLM): the task, each tool call and its outcome."];
  const outcomes = new Map<string, string>();
  for (const m of messages) {
    if (m.role === "tool") for (const r of m.responses) outcomes.set(r.id, outcomeLine(r.response));
  }
  for (const m of messages) {
    if (m.role === "user") {
      out.push(
        "",
        isSummaryMessage(m) ? "Earlier summary:" : "Task:",
        clip(taskText(m.text), MAX_TASK_CHARS),
      );
    } else if (m.role === "model") {
      if (m.text?.trim()) out.push(`- note: ${clip(collapseWhitespace(m.text), MAX_LINE_CHARS)}`);
      for (const call of m.toolCalls ?? []) {
        const args = clip(JSON.stringify(call.args), MAX_LINE_CHARS);
        out.push(`- called ${call.name} ${args} → ${outcomes.get(call.id) ?? "no response recorded"}`);
      }
    }
  }
  return out.join("\n");
}

function taskText(text: string): string {
  return text.startsWith(SUMMARY_MARKER) ? text.split("\n").slice(2).join("\n").trim() : text.trim();
}

function outcomeLine(response: JsonObject): string {
  const summary = response.summary;
  const ok = response.ok;
  if (typeof summary === "string") {
    return `${ok === false ? "failed: " : ""}${clip(collapseWhitespace(summary), MAX_LINE_CHARS)}`;
  }
  return clip(JSON.stringify(response), MAX_LINE_CHARS);
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} characters cut]`;
}
