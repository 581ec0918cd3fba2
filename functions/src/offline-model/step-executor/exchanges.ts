import type { Message, ToolCallRequest } from "../../model/port.js";
import { logAnalystQueries } from "../evidence/log-analyst.js";
import type { CallRecord } from "../evidence/types.js";

/** One tool call of this step's loop and what came back, in the order they happened. */
export interface Exchange {
  round: number;
  id: string;
  record: CallRecord;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Pairs the model's tool calls with the tool responses by id. The response envelope is
 * {ok, summary, untrusted_data}; only those three fields are read, and the data is kept as
 * data for the field-by-field readers.
 */
export function readExchanges(messages: readonly Message[]): Exchange[] {
  const calls = new Map<string, { call: ToolCallRequest; round: number }>();
  const out: Exchange[] = [];
  let round = 0;
  for (const message of messages) {
    if (message.role === "model" && message.toolCalls?.length) {
      round += 1;
      for (const call of message.toolCalls) calls.set(call.id, { call, round });
    }
    if (message.role !== "tool") continue;
    for (const response of message.responses) {
      const issued = calls.get(response.id);
      const body = isRecord(response.response) ? response.response : {};
      out.push({
        round: issued?.round ?? round,
        id: response.id,
        record: {
          name: response.name,
          args: issued?.call.args ?? {},
          ok: body.ok === true,
          summary: typeof body.summary === "string" ? body.summary : "",
          data: body.untrusted_data ?? body.data ?? null,
        },
      });
    }
  }
  return out;
}

/**
 * A sub-agent's answer stands for the queries it ran: each becomes an exchange of its own
 * (probes tagged as such), so reports count rows and sources per query. An answer that ran
 * no query stays as it is.
 */
export function expandLogAnalystAnswers(exchanges: readonly Exchange[]): Exchange[] {
  return exchanges.flatMap((e) => {
    const queries = logAnalystQueries(e.record);
    if (!queries || queries.length === 0) return [e];
    return queries.map((q, k) => ({
      round: e.round,
      id: `${e.id}-q${k}-${q.probe ? "probe" : "main"}`,
      record: q.record,
    }));
  });
}

export function isLogAnalystAnswer(exchange: Exchange): boolean {
  return logAnalystQueries(exchange.record) !== undefined;
}

export function roundsDone(exchanges: readonly Exchange[]): number {
  return exchanges.reduce((max, e) => Math.max(max, e.round), 0);
}
