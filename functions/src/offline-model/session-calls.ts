import type { JsonValue } from "../domain/json.js";
import type { SessionTurn } from "../domain/log-analyst-session.js";

/** One tool call of a sub-agent session with what came back. */
export interface SessionCall {
  name: string;
  args: JsonValue;
  /** False when the tool failed or no result was recorded for the call. */
  ok: boolean;
  summary: string;
}

/**
 * Pairs each tool call with its result: a model turn's calls are answered by the next tool
 * turn, matched by tool name in order (results of parallel calls come back in call order,
 * but matching by name also survives a transcript that reordered them).
 */
export function sessionCalls(transcript: readonly SessionTurn[]): SessionCall[] {
  const calls: SessionCall[] = [];
  transcript.forEach((turn, i) => {
    if (turn.role !== "model" || !turn.toolCalls?.length) return;
    const answer = transcript.slice(i + 1).find((t) => t.role === "tool" || t.role === "model");
    const results = answer?.role === "tool" ? [...(answer.toolResults ?? [])] : [];
    for (const call of turn.toolCalls) {
      const at = results.findIndex((r) => r.name === call.name);
      const result = at >= 0 ? results.splice(at, 1)[0] : undefined;
      calls.push({
        name: call.name,
        args: call.args,
        ok: result?.ok ?? false,
        summary: result?.summary ?? "no result recorded",
      });
    }
  });
  return calls;
}
