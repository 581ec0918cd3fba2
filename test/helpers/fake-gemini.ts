import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The one local stand-in for the Gemini Developer API (and the Vertex paths the SDK uses),
 * for every test that puts the production GeminiModel on the wire: @google/genai reaches it
 * through the base URL (GOOGLE_GEMINI_BASE_URL for the function servers, httpOptions in the
 * adapter tests), so the SDK, the retry policy and the error classification run unchanged.
 *
 * Answers come from a queue of replies (`reply`) first, then from the `respond` function
 * given at construction; a request neither can answer gets a 599, so the test fails
 * visibly. Every request is recorded with its raw text, parsed body, the ferret role its
 * system instruction names, and the status it got.
 */
export type Role = "planner" | "executor" | "reflector" | "concluder" | "compressor" | "unknown";

export interface GeminiPart {
  text?: string;
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  role: string;
  parts: GeminiPart[];
}

export interface GeminiRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as sent, e.g. for routing on the finding a prompt carries. */
  text: string;
  /** The body parsed as JSON; undefined when empty or not JSON. */
  body: unknown;
  /** The system instruction's text, and the ferret role whose prompt it opens. */
  system: string;
  role: Role;
  contents: GeminiContent[];
  /** The status the fake answered with (0 until answered). */
  status: number;
}

export interface FakeReply {
  status?: number;
  /** Serialized as JSON unless `raw` is given. */
  json?: unknown;
  /** Sent verbatim (malformed bodies included). */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Hold the answer back, to provoke client timeouts. */
  delayMs?: number;
}

export type FakeHandler = FakeReply | ((request: GeminiRequest) => FakeReply);

export interface FakeGeminiOptions {
  /** Answers every request the reply queue does not. */
  respond?: (request: GeminiRequest) => FakeReply;
  /** Answer embedding requests with one fixed unit vector each, outside the queue and unrecorded. */
  embeddings?: boolean;
}

const ROLE_BY_OPENING: Array<[string, Role]> = [
  ["You plan investigations", "planner"],
  ["You carry out one step", "executor"],
  ["You review the progress", "reflector"],
  ["You write the conclusion", "concluder"],
  ["You condense the older part", "compressor"],
];

export class FakeGemini {
  readonly requests: GeminiRequest[] = [];
  private readonly queue: FakeHandler[] = [];
  private server: Server | undefined;
  private address: string | undefined;

  constructor(private readonly options: FakeGeminiOptions = {}) {}

  /** Starts a fake and returns it, listening on 127.0.0.1. */
  static async start(options: FakeGeminiOptions = {}): Promise<FakeGemini> {
    const fake = new FakeGemini(options);
    await fake.start();
    return fake;
  }

  /** Queues replies, answered in order before `respond` is asked. */
  reply(...handlers: FakeHandler[]): this {
    this.queue.push(...handlers);
    return this;
  }

  get pending(): number {
    return this.queue.length;
  }

  get url(): string {
    if (!this.address) throw new Error("the fake Gemini server is not started");
    return this.address;
  }

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => this.answer(recordOf(req.method, req.url, req.headers, chunks), res));
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.address;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private answer(request: GeminiRequest, res: ServerResponse): void {
    if (this.options.embeddings && /:(batchEmbedContents|embedContent)\b/.test(request.path)) {
      send(res, embeddingAnswer(request.body));
      return;
    }
    this.requests.push(request);
    const handler = this.queue.shift() ?? this.options.respond;
    const reply: FakeReply =
      handler === undefined
        ? apiError(599, "UNKNOWN", `unexpected request ${request.path}`)
        : typeof handler === "function"
          ? handler(request)
          : handler;
    request.status = reply.status ?? 200;
    if (reply.delayMs) setTimeout(() => send(res, reply), reply.delayMs).unref();
    else send(res, reply);
  }
}

function recordOf(
  method: string | undefined,
  url: string | undefined,
  headers: IncomingHttpHeaders,
  chunks: Buffer[],
): GeminiRequest {
  const text = Buffer.concat(chunks).toString("utf8");
  let body: unknown;
  try {
    body = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    body = undefined;
  }
  const fields = (body ?? {}) as { systemInstruction?: { parts?: GeminiPart[] }; contents?: unknown };
  const system = (fields.systemInstruction?.parts ?? []).map((p) => p.text ?? "").join("");
  return {
    method: method ?? "",
    path: url ?? "",
    headers,
    text,
    body,
    system,
    role: ROLE_BY_OPENING.find(([opening]) => system.startsWith(opening))?.[1] ?? "unknown",
    contents: Array.isArray(fields.contents) ? (fields.contents as GeminiContent[]) : [],
    status: 0,
  };
}

function send(res: ServerResponse, reply: FakeReply): void {
  if (res.destroyed) return;
  res.writeHead(reply.status ?? 200, {
    "content-type": reply.contentType ?? "application/json",
    ...reply.headers,
  });
  res.end(reply.raw ?? JSON.stringify(reply.json ?? {}));
}

function embeddingAnswer(body: unknown): FakeReply {
  const requests = (body as { requests?: unknown } | undefined)?.requests;
  const count = Array.isArray(requests) ? requests.length : 1;
  const values = Array.from({ length: 768 }, (_, i) => (i === 0 ? 1 : 0));
  return { json: { embeddings: Array.from({ length: count }, () => ({ values })) } };
}

/** A generateContent answer in the Developer API's shape; `extra` overrides top-level fields. */
export function geminiAnswer(
  parts: GeminiPart[] | unknown[],
  extra: Record<string, unknown> = {},
): FakeReply {
  return {
    json: {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 30, totalTokenCount: 150 },
      modelVersion: "gemini-2.5-flash",
      responseId: "resp-1",
      ...extra,
    },
  };
}

/** A generateContent answer carrying `text` as the model's only part. */
export const textAnswer = (text: string): FakeReply => geminiAnswer([{ text }]);

/** A generateContent answer carrying `value` as JSON text. */
export const jsonAnswer = (value: unknown): FakeReply => textAnswer(JSON.stringify(value));

/** The error body Google APIs send with a status, e.g. 503 UNAVAILABLE. */
export function apiError(
  status: number,
  rpcStatus: string,
  message: string,
  details: unknown[] = [],
): FakeReply {
  return { status, json: { error: { code: status, message, status: rpcStatus, details } } };
}

/** The Developer API's answer to a request over the model's input window, as it sends it. */
export const tokenLimitRefusal = (): FakeReply => ({
  status: 400,
  json: {
    error: {
      code: 400,
      message: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
      status: "INVALID_ARGUMENT",
    },
  },
});
