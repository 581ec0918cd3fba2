import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isDeepStrictEqual } from "node:util";

/** A file under test/fixtures/real/mcp/ (see its PROVENANCE.md), as bytes on disk. */
export function recorded(path: string): string {
  return readFileSync(new URL(`../../fixtures/real/mcp/${path}`, import.meta.url), "utf8");
}

/**
 * One answer the stand-in gives. `envelope` is a whole JSON-RPC response as recorded: only
 * its id changes, to the request's. `result` and `error` are bare members as published (the
 * specification's examples), wrapped in an envelope here. The last two are the stand-in's own
 * failures, not recordings: an answer that never comes, and an HTTP error with a body.
 */
export type Answer =
  | { envelope: string }
  | { result: string }
  | { error: string }
  | { silence: true }
  | { status: number; body: string };

export interface Recording {
  initialize: Answer;
  toolsList: Answer;
  /** Answers to tools/call by tool name, given in order. */
  calls?: Record<string, Answer[]>;
}

export interface ReplayServer {
  url: string;
  /** Every JSON-RPC message the client sent, in order. */
  received: { method?: string; params?: unknown }[];
  close(): Promise<void>;
}

type Id = string | number;
const ID = /"id"(\s*):(\s*)(-?\d+|"(?:[^"\\]|\\.)*")/;

/** The recorded bytes with the top-level id swapped; anything else changing is a test bug. */
export function withId(envelope: string, id: Id): string {
  const swapped = envelope.replace(ID, (_m, a: string, b: string) => `"id"${a}:${b}${JSON.stringify(id)}`);
  const before = JSON.parse(envelope) as Record<string, unknown>;
  if (!isDeepStrictEqual(JSON.parse(swapped), { ...before, id }))
    throw new Error("the first id in the recording is not the envelope's");
  return swapped;
}

function bytesFor(answer: Exclude<Answer, { silence: true } | { status: number }>, id: Id): string {
  if ("envelope" in answer) return withId(answer.envelope, id);
  const member = "result" in answer ? `"result":${answer.result}` : `"error":${answer.error}`;
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},${member}}`;
}

/**
 * A streamable HTTP endpoint that answers the SDK client's initialize, tools/list and
 * tools/call with recorded bytes (JSON responses, no session, no SSE stream: the transport
 * allows each). Methods it holds no recording for get its own "not recorded" error.
 */
export async function startReplay(recording: Recording): Promise<ReplayServer> {
  const received: ReplayServer["received"] = [];
  const queues = new Map(Object.entries(recording.calls ?? {}).map(([k, v]) => [k, [...v]]));
  const pick = (method: string, params: unknown): Answer | undefined => {
    if (method === "initialize") return recording.initialize;
    if (method === "tools/list") return recording.toolsList;
    if (method !== "tools/call") return undefined;
    const name = (params as { name?: unknown } | undefined)?.name;
    return typeof name === "string" ? queues.get(name)?.shift() : undefined;
  };
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") return void res.writeHead(405).end();
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = JSON.parse(body) as { id?: Id; method?: string; params?: unknown };
    received.push({ ...(message.method ? { method: message.method } : {}), params: message.params });
    if (message.id === undefined || message.method === undefined) return void res.writeHead(202).end();
    const chosen = pick(message.method, message.params);
    if (chosen && "silence" in chosen) return; // held open until close()
    if (chosen && "status" in chosen) return void res.writeHead(chosen.status).end(chosen.body);
    const bytes = chosen
      ? bytesFor(chosen, message.id)
      : JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "not recorded" } });
    res.writeHead(200, { "content-type": "application/json" }).end(bytes);
  };
  const http = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    received,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/**
 * Every string the server wrote in a recorded answer that is long enough to recognise, for
 * checking that none of it reached a summary. The protocol's own words are not the server's.
 */
export function serverStrings(bytes: string): string[] {
  const out: string[] = [];
  const walk = (value: unknown, key: string) => {
    if (typeof value === "string") {
      if (value.length >= 6 && key !== "type" && key !== "jsonrpc") out.push(value);
    } else if (Array.isArray(value)) for (const v of value) walk(v, key);
    else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(JSON.parse(bytes), "");
  return out;
}
