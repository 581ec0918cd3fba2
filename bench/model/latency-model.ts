import type { BriefRole } from "../../functions/src/agent/briefs.js";
import type {
  EmbedRequest,
  GenerateRequest,
  GenerateResponse,
  Model,
} from "../../functions/src/model/port.js";
import { isRepairRequest } from "../../functions/src/model/structured.js";
import { estimateInputTokens, estimateOutputTokens } from "../../functions/src/model/tokens.js";

/** One generate call as the benchmark saw it: when, for whom, and what it cost. */
export interface ModelCall {
  /** The role that asked, read from the brief (a repair call counts for its role). */
  role: BriefRole;
  /** Set for executor calls: the plan step the call belongs to. */
  stepId?: string;
  /**
   * A repair call (model/structured.ts): the answer before it broke its schema. Each is a billed
   * call that keywords the API enforces would have spared (issue 36.4), so the bench counts them.
   */
  repair: boolean;
  startMs: number;
  endMs: number;
  inputTokens: number;
  outputTokens: number;
}

export interface LatencyOptions {
  /** Simulated provider latency per generate call. */
  generateMs: number;
  /** Simulated latency per embed call; defaults to 0. */
  embedMs?: number;
  /** Monotonic clock in ms; defaults to performance.now. */
  clock?: () => number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Wraps a model (here: the offline playbook model) so every call takes a fixed simulated
 * time, as a hosted LLM would, and records a timeline of calls. Decisions stay the inner
 * model's and tokens are estimated from each request and answer, so two orchestrations
 * compared with it differ only in how they sequence the same brain.
 */
export class LatencyModel implements Model {
  readonly calls: ModelCall[] = [];
  private readonly clock: () => number;

  constructor(
    private readonly inner: Model,
    private readonly options: LatencyOptions,
  ) {
    this.clock = options.clock ?? (() => performance.now());
  }

  get name(): string {
    return this.inner.name;
  }

  get offline(): boolean {
    return this.inner.offline;
  }

  async generate(request: GenerateRequest): Promise<GenerateResponse> {
    const startMs = this.clock();
    if (this.options.generateMs > 0) await sleep(this.options.generateMs);
    const inner = await this.inner.generate(request);
    // A hosted LLM bills what it reads and writes; the offline brain is no LLM and reports no
    // tokens, so the simulated provider estimates them (as the ReAct brain does) and both
    // orchestrations are billed alike.
    const response: GenerateResponse = {
      ...inner,
      usage: {
        ...inner.usage,
        inputTokens: estimateInputTokens(request),
        outputTokens: estimateOutputTokens(inner),
      },
    };
    const stepId = request.brief.role === "executor" ? request.brief.step.id : undefined;
    this.calls.push({
      role: request.brief.role,
      ...(stepId ? { stepId } : {}),
      repair: isRepairRequest(request),
      startMs,
      endMs: this.clock(),
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
    });
    return response;
  }

  async embed(request: EmbedRequest): Promise<number[][]> {
    const ms = this.options.embedMs ?? 0;
    if (ms > 0) await sleep(ms);
    return this.inner.embed(request);
  }
}
