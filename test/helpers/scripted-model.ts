import type { BriefRole } from "../../functions/src/agent/briefs.js";
import type { JsonObject } from "../../functions/src/domain/json.js";
import type { Usage } from "../../functions/src/domain/results.js";
import { hashEmbedding } from "../../functions/src/model/hash-embedding.js";
import type {
  EmbedRequest,
  GenerateRequest,
  GenerateResponse,
  Model,
  ToolCallRequest,
} from "../../functions/src/model/port.js";
import { estimateInputTokens, estimateOutputTokens } from "../../functions/src/model/tokens.js";

/** What a script step may answer with. */
export interface ScriptedResponse {
  text?: string;
  /** Shorthand for `text: JSON.stringify(json)`. */
  json?: unknown;
  toolCalls?: Array<{ id?: string; name: string; args?: JsonObject }>;
  /** Overrides the estimate field by field. */
  usage?: Partial<Usage>;
  finishReason?: string;
  model?: string;
}

/** A string is a text answer; an Error instance is thrown (to script provider failures). */
export type ScriptedReply = string | ScriptedResponse | Error;

/** `index` counts within the list that serves the call (per role when the script is keyed). */
export type ScriptStep =
  | ScriptedReply
  | ((request: GenerateRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);

export type Script = ScriptStep[] | Partial<Record<BriefRole, ScriptStep[]>>;

export interface ScriptedCall {
  /** Position among all generate calls on this model. */
  index: number;
  role: BriefRole;
  /** Position within the list that served it. */
  stepIndex: number;
  /** Deep copy taken when the call arrived: later mutation by the caller cannot rewrite history. */
  request: GenerateRequest;
  at: string;
  response?: GenerateResponse;
  error?: unknown;
}

export interface ScriptedModelOptions {
  name?: string;
  offline?: boolean;
  /** Simulated provider latency per call. */
  latencyMs?: number | ((request: GenerateRequest, index: number) => number);
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
  /** Default: hashEmbedding (deterministic, similar texts get similar vectors). */
  embed?: (request: EmbedRequest) => number[][] | Promise<number[][]>;
}

export class ScriptExhaustedError extends Error {
  constructor(role: BriefRole, served: number, request: GenerateRequest) {
    const last = request.messages.at(-1);
    const preview = last ? JSON.stringify(last).slice(0, 300) : "(no messages)";
    super(
      `scripted model has no response left for role "${role}" (call ${served + 1}, ${served} scripted). Last message: ${preview}`,
    );
    this.name = "ScriptExhaustedError";
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The Model used by tests and benchmarks: it answers from a script and records every
 * request, so tests can assert what was sent, not only what came back. It fails loudly when
 * the script runs out instead of inventing an answer.
 */
export class ScriptedModel implements Model {
  readonly name: string;
  readonly offline: boolean;
  readonly embedRequests: EmbedRequest[] = [];
  private readonly script: Script;
  private readonly options: ScriptedModelOptions;
  private readonly positions = new Map<string, number>();
  private readonly history: ScriptedCall[] = [];

  constructor(script: Script, options: ScriptedModelOptions = {}) {
    this.script = script;
    this.options = options;
    this.name = options.name ?? "scripted";
    this.offline = options.offline ?? false;
  }

  get calls(): readonly ScriptedCall[] {
    return this.history;
  }

  get requests(): GenerateRequest[] {
    return this.history.map((call) => call.request);
  }

  requestsFor(role: BriefRole): GenerateRequest[] {
    return this.history.filter((call) => call.role === role).map((call) => call.request);
  }

  /** Steps not yet consumed; a test can assert 0 to prove the whole script was used. */
  remaining(role?: BriefRole): number {
    if (Array.isArray(this.script)) return this.script.length - (this.positions.get("*") ?? 0);
    const keyed: Partial<Record<BriefRole, ScriptStep[]>> = this.script;
    const keys = role ? [role] : (Object.keys(keyed) as BriefRole[]);
    return keys.reduce((sum, key) => sum + (keyed[key]?.length ?? 0) - (this.positions.get(key) ?? 0), 0);
  }

  async generate(request: GenerateRequest): Promise<GenerateResponse> {
    // A request on an aborted signal is never sent, so it is not recorded as a call.
    request.signal?.throwIfAborted();
    const call: ScriptedCall = {
      index: this.history.length,
      role: request.brief.role,
      stepIndex: 0,
      request: cloneRequest(request),
      at: (this.options.now?.() ?? new Date()).toISOString(),
    };
    this.history.push(call);
    try {
      const { step, stepIndex } = this.nextStep(request);
      call.stepIndex = stepIndex;
      const latency = this.options.latencyMs;
      const ms = typeof latency === "function" ? latency(request, call.index) : (latency ?? 0);
      if (ms > 0) await abortable((this.options.sleep ?? defaultSleep)(ms), request.signal);
      const reply = typeof step === "function" ? await step(request, stepIndex) : step;
      if (reply instanceof Error) throw reply;
      const response = this.toResponse(request, reply, call.index);
      call.response = structuredClone(response);
      return response;
    } catch (error) {
      call.error = error;
      throw error;
    }
  }

  async embed(request: EmbedRequest): Promise<number[][]> {
    this.embedRequests.push(cloneRequest(request));
    if (this.options.embed) return this.options.embed(request);
    return request.texts.map((text) => hashEmbedding(text, request.dimensions));
  }

  private nextStep(request: GenerateRequest): { step: ScriptStep; stepIndex: number } {
    const key = Array.isArray(this.script) ? "*" : request.brief.role;
    const list = Array.isArray(this.script) ? this.script : (this.script[request.brief.role] ?? []);
    const position = this.positions.get(key) ?? 0;
    const step = list[position];
    if (step === undefined) throw new ScriptExhaustedError(request.brief.role, position, request);
    this.positions.set(key, position + 1);
    return { step, stepIndex: position };
  }

  private toResponse(
    request: GenerateRequest,
    reply: string | ScriptedResponse,
    index: number,
  ): GenerateResponse {
    const scripted: ScriptedResponse = typeof reply === "string" ? { text: reply } : reply;
    const text = scripted.json !== undefined ? JSON.stringify(scripted.json) : scripted.text;
    const toolCalls: ToolCallRequest[] = (scripted.toolCalls ?? []).map((call, i) => ({
      id: call.id ?? `scripted-${index}-${i}`,
      name: call.name,
      args: call.args ?? {},
    }));
    const usage: Usage = {
      llmCalls: scripted.usage?.llmCalls ?? 1,
      inputTokens: scripted.usage?.inputTokens ?? estimateInputTokens(request),
      outputTokens: scripted.usage?.outputTokens ?? estimateOutputTokens({ text, toolCalls }),
    };
    return {
      ...(text !== undefined ? { text } : {}),
      toolCalls,
      usage,
      model: scripted.model ?? this.name,
      finishReason: scripted.finishReason ?? "STOP",
    };
  }
}

/** The simulated latency ends early when the signal fires, as an aborted HTTP call does. */
async function abortable(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return wait;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([wait, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** An AbortSignal cannot be cloned; the recorded copy keeps everything else. */
function cloneRequest<R extends { signal?: AbortSignal }>(request: R): R {
  const { signal, ...rest } = request;
  return { ...structuredClone(rest), ...(signal ? { signal } : {}) } as R;
}
