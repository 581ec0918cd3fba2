import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FinishReason } from "@google/genai";
import {
  answeringModel,
  type Backend,
  check,
  type DummySpelling,
  familyOf,
  ignoredSchemaKeywords,
  routeOf,
} from "./gemini-rules.js";

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
 *
 * It is as strict as Gemini (unless built with `strict: false`, for tests of the fake itself):
 * - a generateContent request that breaks a rule of its model family (test/helpers/gemini-rules.ts,
 *   each rule with its source) is refused with the 400 Gemini sends, before any reply is used;
 * - a Gemini 3 answer with function calls carries a thought signature on the first call, as
 *   https://ai.google.dev/gemini-api/docs/thought-signatures says every such response does (and
 *   the Gemini 3 Pro recordings in test/fixtures/real/gemini/js-genai show); scripted replies
 *   that lack one get a fresh opaque one, and every signature served is remembered, so only
 *   those (or the documented dummies) are accepted back;
 * - thinking counts against maxOutputTokens: a scripted answer whose thoughtsTokenCount plus
 *   candidatesTokenCount exceeds the request's cap is cut there and ends MAX_TOKENS, as measured
 *   on Gemini 3 (vectorize-io/hindsight#3365: 478 + 18 of a 500 cap, MAX_TOKENS;
 *   googleapis/python-genai#2062) and on 2.5 (langchain-ai/langchain-google#1020: 3071 thinking
 *   tokens of a 3072 cap, no answer);
 * - schema keywords Gemini does not enforce are not refused but recorded (`ignoredKeywords`),
 *   as https://ai.google.dev/gemini-api/docs/structured-output says they are ignored;
 * - every answer names the model that produced it (`modelVersion`): for a `-latest` alias or a
 *   deprecated id Google routes elsewhere, that is another model (gemini-rules.ts answeringModel),
 *   whose family then decides the rules;
 * - a scripted finish reason the SDK's FinishReason enum does not know fails the test (599);
 * - continuation tokens served are remembered; a request may only continue from one of them.
 */
export type Role = "planner" | "executor" | "reflector" | "concluder" | "compressor" | "unknown";

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
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
  /** The model and backend a generateContent path names. */
  model: string | undefined;
  backend: Backend | undefined;
  /** The status the fake answered with (0 until answered). */
  status: number;
  /** The Gemini rule the request broke, when the fake refused it (see gemini-rules.ts). */
  refusedBy?: string;
  /** Schema keywords Gemini ignores (rule schema-keywords-ignored): sent, but not enforced. */
  ignoredKeywords: string[];
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
  /** Enforce Gemini's rules (default true); only the fake's own tests turn it off. */
  strict?: boolean;
  /**
   * The one spelling of the documented dummy thought signature each backend accepts; a backend
   * not named accepts both (gemini-rules.ts, rule thought-signature-dummy-spelling).
   */
  dummySpelling?: Partial<Record<Backend, DummySpelling>>;
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
  /** Thought signatures and continuation tokens this server has served. */
  readonly issued = { signatures: new Set<string>(), continuationTokens: new Set<string>() };
  private readonly queue: FakeHandler[] = [];
  private signed = 0;
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

  /** Forgets queued replies and recorded requests (what it has issued stays valid, as on the API). */
  reset(): this {
    this.queue.length = 0;
    this.requests.length = 0;
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
    const strict = this.options.strict !== false;
    const generates =
      request.model !== undefined && /generateContent$/i.test(request.path.split("?")[0] ?? "");
    if (strict && generates && request.backend) {
      const refusal = check(
        { model: request.model!, backend: request.backend },
        request.body,
        this.issued,
        this.options.dummySpelling?.[request.backend],
      );
      if (refusal) {
        request.refusedBy = refusal.rule;
        request.status = refusal.status;
        send(res, { status: refusal.status, json: refusal.body });
        return;
      }
    }
    const handler = this.queue.shift() ?? this.options.respond;
    let reply: FakeReply =
      handler === undefined
        ? apiError(599, "UNKNOWN", `unexpected request ${request.path}`)
        : typeof handler === "function"
          ? handler(request)
          : handler;
    if (strict && generates) reply = this.asGeminiWould(request, reply);
    request.status = reply.status ?? 200;
    if (reply.delayMs) setTimeout(() => send(res, reply), reply.delayMs).unref();
    else send(res, reply);
  }

  /** A scripted reply as Gemini would have sent it for this request (see the class comment). */
  private asGeminiWould(request: GeminiRequest, reply: FakeReply): FakeReply {
    if ((reply.status ?? 200) !== 200) return reply;
    if (reply.raw !== undefined) {
      // Recorded streams (SSE) and raw bodies are served as they are; what they hand out is remembered.
      for (const chunk of sseChunks(reply.raw)) this.remember(chunk);
      return reply;
    }
    if (reply.json === undefined) return reply;
    const json = structuredClone(reply.json) as AnswerJson;
    // Every answer names the model that produced it; for an alias or a routed id that is another model.
    if (json.modelVersion === undefined && request.model) json.modelVersion = answeringModel(request.model);
    for (const candidate of json.candidates ?? []) {
      const reason = candidate.finishReason;
      if (reason !== undefined && !(Object.values(FinishReason) as string[]).includes(reason)) {
        return apiError(
          599,
          "UNKNOWN",
          `scripted finishReason ${reason} is not in @google/genai's FinishReason`,
        );
      }
    }
    const family = familyOf(request.model ?? "");
    if (family.generation !== undefined && family.generation >= 3 && !family.image) {
      for (const candidate of json.candidates ?? []) {
        const first = candidate.content?.parts?.find((p) => p.functionCall !== undefined);
        if (first && !first.thoughtSignature) {
          first.thoughtSignature = Buffer.from(`fake-gemini-signature-${++this.signed}`).toString("base64");
        }
      }
    }
    const cap = (request.body as { generationConfig?: { maxOutputTokens?: number } } | undefined)
      ?.generationConfig?.maxOutputTokens;
    if (cap !== undefined) capOutput(json, cap);
    this.remember(json);
    return { ...reply, json };
  }

  private remember(json: AnswerJson): void {
    for (const candidate of json.candidates ?? []) {
      if (candidate.continuationToken) this.issued.continuationTokens.add(candidate.continuationToken);
      for (const part of candidate.content?.parts ?? []) {
        if (part.thoughtSignature) this.issued.signatures.add(part.thoughtSignature);
      }
    }
  }
}

interface AnswerPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: unknown;
}
interface AnswerJson {
  modelVersion?: string;
  candidates?: Array<{
    content?: { parts?: AnswerPart[] };
    finishReason?: string;
    continuationToken?: string;
  }>;
  usageMetadata?: {
    promptTokenCount?: number;
    candidatesTokenCount?: number;
    thoughtsTokenCount?: number;
    totalTokenCount?: number;
  };
}

/**
 * Thinking and answer share maxOutputTokens: past the cap the answer is cut and the candidate
 * ends MAX_TOKENS. Thinking comes first, so when it alone reaches the cap nothing visible is left;
 * otherwise the text keeps its share and a function call (which cannot arrive half-written) is
 * dropped.
 */
function capOutput(json: AnswerJson, cap: number): void {
  const usage = json.usageMetadata;
  const candidate = json.candidates?.[0];
  if (!usage || !candidate) return;
  const thoughts = usage.thoughtsTokenCount ?? 0;
  const answer = usage.candidatesTokenCount ?? 0;
  if (thoughts + answer <= cap) return;
  const keptThoughts = Math.min(thoughts, cap);
  const keptAnswer = cap - keptThoughts;
  const share = answer === 0 ? 0 : keptAnswer / answer;
  const parts = candidate.content?.parts ?? [];
  const kept = parts
    .filter((p) => p.functionCall === undefined && (p.thought === true || keptAnswer > 0))
    .map((p) =>
      p.thought === true || typeof p.text !== "string"
        ? p
        : { ...p, text: p.text.slice(0, Math.floor(p.text.length * share)) },
    );
  candidate.content = { ...candidate.content, parts: kept };
  candidate.finishReason = "MAX_TOKENS";
  usage.thoughtsTokenCount = keptThoughts;
  usage.candidatesTokenCount = keptAnswer;
  usage.totalTokenCount = (usage.promptTokenCount ?? 0) + keptAnswer + keptThoughts;
}

/** The JSON objects of an SSE body (`data: {...}` lines), as streamGenerateContent sends them. */
function sseChunks(raw: string): AnswerJson[] {
  return raw
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .flatMap((line) => {
      try {
        return [JSON.parse(line.slice(5)) as AnswerJson];
      } catch {
        return [];
      }
    });
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
  const route = routeOf(url ?? "");
  return {
    method: method ?? "",
    path: url ?? "",
    model: route?.model,
    backend: route?.backend,
    headers,
    text,
    body,
    system,
    role: ROLE_BY_OPENING.find(([opening]) => system.startsWith(opening))?.[1] ?? "unknown",
    contents: Array.isArray(fields.contents) ? (fields.contents as GeminiContent[]) : [],
    status: 0,
    ignoredKeywords: ignoredSchemaKeywords(body),
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
