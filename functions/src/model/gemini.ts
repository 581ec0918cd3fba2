import { randomUUID } from "node:crypto";
import {
  type Content,
  type GenerateContentResponse,
  GoogleGenAI,
  type GoogleGenAIOptions,
} from "@google/genai";
import { DEFAULT_ROLE_SETTINGS, type ModelRole, roleModelId } from "../config/model-settings.js";
import { ConfigError, type FerretError, ModelOutputError } from "../domain/errors.js";
import { type Usage, UsageSchema } from "../domain/results.js";
import { estimateCostUsd, priceOf } from "./cost.js";
import { classifyProviderError, RequestRejectedError } from "./errors.js";
import {
  carriesDummy,
  continuationTokenOf,
  type DummySpelling,
  fromGeminiResponse,
  GENERATED_CALL_ID_PREFIX,
  joinHops,
  refusesSignature,
  toGeminiConfig,
  toGeminiContents,
} from "./gemini-mapping.js";
import {
  embedBatchSize,
  type GeminiOptions,
  GeminiOptionsSchema,
  type ResolvedGeminiOptions,
} from "./gemini-options.js";
import {
  EMBEDDING_DIMENSIONS,
  type EmbedRequest,
  type GenerateRequest,
  type GenerateResponse,
  type Model,
} from "./port.js";

/** Vertex embedding requests that go out at once when each carries a single text. */
const EMBED_CONCURRENCY = 4;

/**
 * Requests one answer may take when the provider stops it at CONTINUATION: the first plus this
 * many continuations. Each hop is billed and counted; an answer still unfinished after them is
 * a failed one, like a MAX_TOKENS stop.
 */
const MAX_CONTINUATIONS = 4;

/**
 * The production Model over @google/genai, for the Developer API (key) and Vertex AI (ADC).
 * It makes exactly one HTTP attempt per call: retries belong to withRetry, so that the
 * policy (and its test) lives in one place and the SDK's own retry stays off.
 */
export class GeminiModel implements Model {
  readonly name: string;
  readonly offline = false;
  readonly embeddingModel: string;
  private readonly options: ResolvedGeminiOptions;
  private readonly client: GoogleGenAI;
  /** The dummy signature spelling each backend and model took (see DUMMY_SIGNATURE_SPELLINGS). */
  private readonly dummySpellings = new Map<string, DummySpelling>();

  constructor(options: GeminiOptions = {}) {
    const parsed = GeminiOptionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new ConfigError(
        `invalid Gemini options: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
    }
    this.options = parsed.data;
    this.name = parsed.data.model;
    this.embeddingModel = parsed.data.embeddingModel;
    this.client = new GoogleGenAI(clientOptions(parsed.data));
  }

  /** The model id, thinking and output settings a role's calls use. */
  roleSettings(name: ModelRole) {
    const role = this.options.roles?.[name] ?? DEFAULT_ROLE_SETTINGS[name];
    const model = roleModelId(role, {
      geminiModel: this.options.model,
      geminiLiteModel: this.options.liteModel,
    });
    return { ...role, model };
  }

  /** Every model id this adapter may call, for a start-up or doctor check. */
  modelIds(): string[] {
    const ids = new Set<string>([this.options.model]);
    for (const name of Object.keys(DEFAULT_ROLE_SETTINGS) as ModelRole[])
      ids.add(this.roleSettings(name).model);
    return [...ids];
  }

  /**
   * Asks the provider whether each configured model exists (models.get): a retired id answers
   * 404, which this reports per model instead of failing the first investigation at planning.
   */
  async checkModels(): Promise<
    Array<{ model: string; ok: boolean; error?: string; code?: FerretError["code"]; retryable?: boolean }>
  > {
    const ids = [...this.modelIds(), this.embeddingModel];
    return Promise.all(
      ids.map(async (model) => {
        try {
          await this.client.models.get({ model });
          return { model, ok: true };
        } catch (error) {
          // code and retryable let a pre-flight tell "no such model" from "could not ask".
          const classified = classifyProviderError(error);
          return {
            model,
            ok: false,
            error: classified.message,
            code: classified.code,
            retryable: classified.retryable,
          };
        }
      }),
    );
  }

  async generate(request: GenerateRequest): Promise<GenerateResponse> {
    const role = this.roleSettings(request.brief.role);
    const key = `${this.options.vertexai ? "vertex" : "developer"}:${role.model}`;
    const spelling = this.dummySpellings.get(key) ?? "base64";
    try {
      return await this.generateWith(request, role, spelling);
    } catch (error) {
      // A refused dummy signature may be the spelling's fault, not ferret's history: asked again
      // once with the other documented spelling; what works is kept for this backend and model.
      const other: DummySpelling = spelling === "base64" ? "literal" : "base64";
      const refusedDummy =
        error instanceof RequestRejectedError &&
        refusesSignature(error.providerMessage) &&
        carriesDummy(toGeminiContents(request.messages, { model: role.model, dummy: spelling }), spelling);
      if (!refusedDummy) throw error;
      const response = await this.generateWith(request, role, other);
      this.dummySpellings.set(key, other);
      return response;
    }
  }

  private async generateWith(
    request: GenerateRequest,
    role: ReturnType<GeminiModel["roleSettings"]>,
    dummy: DummySpelling,
  ): Promise<GenerateResponse> {
    const contents = toGeminiContents(request.messages, { model: role.model, dummy });
    const config = toGeminiConfig(request, {
      vertexai: this.options.vertexai,
      model: role.model,
      role,
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
    });
    // One HTTP request per hop: the SDK's automatic continuation is off (toGeminiConfig), and a
    // CONTINUATION answer is continued here, each hop counted as the request it is.
    const hops: GenerateContentResponse[] = [];
    let token: string | undefined;
    do {
      try {
        hops.push(
          await this.client.models.generateContent({
            model: role.model,
            contents,
            config: token ? { ...config, continuationToken: token } : config,
          }),
        );
      } catch (error) {
        throw classifyProviderError(error);
      }
      token = continuationTokenOf(hops.at(-1)!);
    } while (token !== undefined && hops.length <= MAX_CONTINUATIONS);
    // Priced at the model that answered (modelVersion), which for an alias or a deprecated id is
    // not the one asked for (model/catalog.ts); one without a price shows "no price", not a guess.
    const answered = hops.at(-1)?.modelVersion;
    const price = priceOf(this.options.prices ?? {}, answered ?? role.model);
    try {
      // Thought signatures come back on the calls themselves (ToolCallRequest.signature).
      const response = fromGeminiResponse(
        joinHops(hops),
        role.model,
        () => `${GENERATED_CALL_ID_PREFIX}${randomUUID()}`,
        hops.length,
      );
      const promptTokens = hops[0]?.usageMetadata?.promptTokenCount;
      return {
        ...response,
        usage: withCost(response.usage, price),
        ...(promptTokens !== undefined ? { promptTokens } : {}),
      };
    } catch (error) {
      // A refused or truncated answer was still billed: its usage travels with the error.
      if (error instanceof ModelOutputError && isUsage(error.details?.usage)) {
        error.details.usage = withCost(error.details.usage, price);
      }
      throw error;
    }
  }

  async embed(request: EmbedRequest): Promise<number[][]> {
    const dimensions = request.dimensions ?? EMBEDDING_DIMENSIONS;
    const size = embedBatchSize(this.options);
    const batches: string[][] = [];
    for (let i = 0; i < request.texts.length; i += size) batches.push(request.texts.slice(i, i + size));
    const results: number[][][] = new Array(batches.length);
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const index = next++;
        results[index] = await this.embedBatch(batches[index]!, request.task, dimensions, request.signal);
      }
    };
    const workers = size === 1 ? EMBED_CONCURRENCY : 1;
    await Promise.all(Array.from({ length: Math.min(workers, batches.length) }, worker));
    return results.flat();
  }

  private async embedBatch(
    texts: string[],
    task: EmbedRequest["task"],
    dimensions: number,
    signal: AbortSignal | undefined,
  ): Promise<number[][]> {
    let raw: Awaited<ReturnType<GoogleGenAI["models"]["embedContent"]>>;
    try {
      raw = await this.client.models.embedContent({
        model: this.embeddingModel,
        contents: this.options.vertexai ? texts : texts.map(asContent),
        config: {
          taskType: task,
          outputDimensionality: dimensions,
          ...(signal ? { abortSignal: signal } : {}),
        },
      });
    } catch (error) {
      throw classifyProviderError(error);
    }
    const vectors = (raw.embeddings ?? []).map((embedding) => embedding.values ?? []);
    if (vectors.length !== texts.length || vectors.some((v) => v.length !== dimensions)) {
      throw new ModelOutputError(
        `${this.embeddingModel} returned ${vectors.length} embedding(s) of length ${vectors.map((v) => v.length).join("/") || "-"} for ${texts.length} text(s) at ${dimensions} dimensions`,
        { model: this.embeddingModel, expected: texts.length, dimensions },
      );
    }
    return vectors.map(normalize);
  }
}

/**
 * One content per text. Given bare strings, the SDK turns a gemini-embedding-2 request into
 * a single content with N parts (one embedding for all); Content objects keep them apart.
 */
function asContent(text: string): Content {
  return { role: "user", parts: [{ text }] };
}

function withCost(usage: Usage, price: Parameters<typeof estimateCostUsd>[1]): Usage {
  const cost = estimateCostUsd(usage, price);
  return cost === undefined ? usage : { ...usage, costUsd: cost };
}

function isUsage(value: unknown): value is Usage {
  return UsageSchema.safeParse(value).success;
}

/**
 * Only the full 3072-d output of gemini-embedding-001 comes normalized; truncated ones
 * (768 here) must be normalized by the caller for dot-product and euclidean comparisons.
 */
function normalize(vector: number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((v) => v / norm);
}

function clientOptions(options: ResolvedGeminiOptions): GoogleGenAIOptions {
  if (!options.vertexai && !options.apiKey) {
    throw new ConfigError("Gemini Developer API needs an API key (GEMINI_API_KEY or GOOGLE_API_KEY)");
  }
  if (options.vertexai && !options.project && !options.apiKey) {
    throw new ConfigError("Vertex AI needs GOOGLE_CLOUD_PROJECT (or an express-mode API key)");
  }
  return {
    vertexai: options.vertexai,
    ...(options.apiKey && !(options.vertexai && options.project) ? { apiKey: options.apiKey } : {}),
    ...(options.vertexai && options.project
      ? { project: options.project, location: options.location ?? "global" }
      : {}),
    ...(options.apiVersion || !options.vertexai ? { apiVersion: options.apiVersion ?? "v1beta" } : {}),
    httpOptions: {
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      timeout: options.timeoutMs,
    },
  };
}
