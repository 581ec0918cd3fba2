import { createHash } from "node:crypto";
import { type JsonValue, jsonBytes } from "../domain/json.js";
import {
  type LogAnalystSession,
  LogAnalystSessionSchema,
  SESSION_TRANSCRIPT_MAX_BYTES,
  type SessionTurn,
} from "../domain/log-analyst-session.js";
import type { Message } from "../model/port.js";
import { capCell } from "../tools/log-pages.js";
import type { LogAnalystAnswer, LogAnalystRequest, TimeWindow } from "./contract.js";

/** Per-turn caps: enough for the introspector to see what was asked and what came back. */
const TURN_LIMITS = { userChars: 8_000, modelChars: 2_000, argChars: 1_000, summaryChars: 1_000 };
const MAX_ANSWER_CHARS = 8_000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Deterministic per invocation: the same investigation, step and tool call always give the
 * same id, so a redelivered Pub/Sub message or a re-run step is recognised downstream.
 * Without a call id (a caller that does not pass one) the request itself stands in.
 */
export function sessionIdFor(parts: {
  investigationId: string;
  stepId?: string;
  toolCallId?: string;
  input: LogAnalystRequest;
  window: TimeWindow;
}): string {
  const identity = parts.toolCallId
    ? [parts.investigationId, parts.stepId ?? null, parts.toolCallId]
    : [
        parts.investigationId,
        parts.stepId ?? null,
        parts.input.request,
        parts.input.focus ?? null,
        parts.window,
      ];
  return `log_analyst-${createHash("sha256").update(JSON.stringify(identity)).digest("hex").slice(0, 40)}`;
}

export function transcriptOf(messages: readonly Message[]): SessionTurn[] {
  return messages.map((m): SessionTurn => {
    if (m.role === "user") return { role: "user", text: clip(m.text, TURN_LIMITS.userChars) };
    if (m.role === "model")
      return {
        role: "model",
        ...(m.text ? { text: clip(m.text, TURN_LIMITS.modelChars) } : {}),
        ...(m.toolCalls?.length
          ? {
              toolCalls: m.toolCalls.map((c) => ({
                name: c.name,
                args: capCell(c.args, TURN_LIMITS.argChars) as JsonValue,
              })),
            }
          : {}),
      };
    return {
      role: "tool",
      toolResults: m.responses.map((r) => ({
        name: r.name,
        ok: r.response.ok === true,
        summary: clip(
          typeof r.response.summary === "string" ? r.response.summary : "",
          TURN_LIMITS.summaryChars,
        ),
      })),
    };
  });
}

/**
 * Keeps the transcript under `maxBytes`: the first turn (the question) stays, the oldest
 * rounds after it go first, and a note says how many turns were left out. What is kept
 * always starts with a model turn, so every tool turn still follows the calls it answers.
 */
export function boundTranscript(turns: readonly SessionTurn[], maxBytes: number): SessionTurn[] {
  if (jsonBytes(turns) <= maxBytes || turns.length <= 1) return [...turns];
  const first = turns[0]!;
  const note = (n: number): SessionTurn => ({
    role: "user",
    text: `[${n} earlier turn(s) omitted to keep this session record under ${maxBytes} bytes]`,
  });
  for (let from = 2; from <= turns.length; from++) {
    const rest = turns.slice(from);
    if (rest[0]?.role === "tool") continue;
    const kept = [first, note(from - 1), ...rest];
    if (jsonBytes(kept) <= maxBytes) return kept;
  }
  const shortFirst: SessionTurn = { ...first, text: clip(first.text ?? "", Math.floor(maxBytes / 4)) };
  return [shortFirst, note(turns.length - 1)];
}

export function answerText(answer: LogAnalystAnswer): string {
  const lines = [
    `[${answer.outcome}] ${answer.summary}`,
    ...answer.facts.map((f) => `- ${f}`),
    ...(answer.iocs.length > 0 ? [`IOCs: ${answer.iocs.map((i) => `${i.type}:${i.value}`).join(", ")}`] : []),
    ...(answer.openQuestions ?? []).map((q) => `? ${q}`),
  ];
  return clip(lines.join("\n"), MAX_ANSWER_CHARS);
}

export function buildSession(parts: {
  sessionId: string;
  investigationId: string;
  stepId?: string;
  request: string;
  recalledMemoryIds: readonly string[];
  messages: readonly Message[];
  answer: LogAnalystAnswer;
  model: string;
  startedAt: string;
  finishedAt: string;
  maxTranscriptBytes?: number;
}): LogAnalystSession {
  const turns = [
    ...transcriptOf(parts.messages),
    { role: "model" as const, text: clip(answerText(parts.answer), TURN_LIMITS.userChars) },
  ];
  // Validated here so a session that breaks the topic's contract fails in the producer's tests.
  return LogAnalystSessionSchema.parse({
    sessionId: parts.sessionId,
    investigationId: parts.investigationId,
    ...(parts.stepId ? { stepId: parts.stepId } : {}),
    agent: "log_analyst",
    request: clip(parts.request, 4_000),
    recalledMemoryIds: parts.recalledMemoryIds.slice(0, 100),
    transcript: boundTranscript(turns, parts.maxTranscriptBytes ?? SESSION_TRANSCRIPT_MAX_BYTES),
    answer: answerText(parts.answer),
    model: parts.model,
    startedAt: parts.startedAt,
    finishedAt: parts.finishedAt,
  });
}
