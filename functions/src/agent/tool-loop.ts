import type { z } from "zod";
import { ModelOutputError } from "../domain/errors.js";
import { addUsage, type Usage, ZERO_USAGE } from "../domain/results.js";
import type {
  GenerateRequest,
  GenerateResponse,
  Message,
  Model,
  ToolCallRequest,
  ToolDeclaration,
  ToolResponse,
} from "../model/port.js";
import { generateStructured } from "../model/structured.js";

/**
 * The one tool-calling loop: the step executor, the log-analysis sub-agent and thread answers
 * each configure it (docs/decisions/0035-one-tool-loop.md). A round is one model turn that
 * may call tools, and the tools' answers. The loop ends in one of three ways:
 * - answered: the model answered without calling tools and `done` accepted the answer (or a
 *   repair turn fixed its format);
 * - answered now: a cap ran out (rounds, or tool calls for the whole loop) and one more turn
 *   without tools asked for the answer ("answer now");
 * - stopped: a stop condition returned its reason; no further model call is made, and the
 *   caller writes the answer from what the tools found.
 * A condition may also throw to end the loop (a deadline, context pressure).
 */

/** What the loop knows between turns; conditions and hooks read it. */
export interface LoopState {
  /** The history sent to the model: the caller's first messages plus each completed round. */
  readonly messages: readonly Message[];
  /** Rounds completed, those before a resume included. */
  readonly rounds: number;
  /** Every model call and what tools reported spending, from `usage` on. */
  readonly usage: Usage;
  /** The model that answered last; before any answer, the configured model's name. */
  readonly model: string;
  /** Tool calls run by this loop (refused calls are not counted). */
  readonly toolCalls: number;
  /** The last tool round's model answer. */
  readonly last?: GenerateResponse;
}

/**
 * Returns why the loop must stop (the caller's own reason type), or undefined to go on. It is
 * asked with the round about to run (before) or just completed (after).
 */
export type StopCondition<S> = (state: LoopState, round: number) => S | undefined | Promise<S | undefined>;

/** A request without the parts the loop fills in: the history, and the tools on tool rounds. */
export type TurnRequest = Omit<GenerateRequest, "messages" | "tools" | "responseSchema">;

/** Why a call was not run: the turn's cap, or the loop's whole budget of calls. */
export type Refusal = { kind: "turn"; cap: number } | { kind: "total"; cap: number };

/** What a turn of tool calls may use while it runs. */
export interface ToolTurn {
  round: number;
  /** Spent so far, this turn's model answer included. */
  usage: Usage;
  /** Adds what a tool spent inside itself (a sub-agent's model calls) to the loop's usage. */
  spend: (usage: Usage) => void;
}

/** What leads to the answer-now turn: a cap ran out, or (if so configured) an answer in the wrong format. */
export type AnswerNowReason = "rounds" | "tool-calls" | "unparsed";

export interface ToolLoopConfig<A, S> {
  model: Model;
  /** The history so far; the loop appends each tool round to this array. */
  messages: Message[];
  /** Offered on tool rounds; never on the repair or answer-now turn. */
  tools: readonly ToolDeclaration[];
  /** The request of a turn: a tool round (`answerOnly` false) or a repair / answer-now turn. */
  request: (round: number, answerOnly: boolean, state: LoopState) => TurnRequest;
  /** The iteration cap: tool rounds before the answer-now turn. */
  maxRounds: number;
  /** Rounds already completed (a resumed loop). Default 0. */
  completedRounds?: number;
  /** Usage already spent (a resumed loop, or calls made before it). Default zero. */
  usage?: Usage;
  /** Calls of one turn past this many are refused, not run. Default: no cap. */
  maxToolCallsPerTurn?: number;
  /** Calls over the whole loop; once spent, later calls are refused and the loop answers now. */
  maxToolCalls?: number;
  /**
   * The caller's deadline: no model call is made or acted on, and no round is recorded, once it
   * has fired (the loop throws the signal's reason).
   */
  deadline?: AbortSignal;
  /** Runs the admitted calls of one turn; answers in the same order. */
  runCalls: (calls: ToolCallRequest[], turn: ToolTurn) => Promise<ToolResponse[]>;
  /** The answer the model reads for a call a cap kept from running. Default: `refusedCall`. */
  refuseCall?: (call: ToolCallRequest, refusal: Refusal) => ToolResponse;
  /** After each round's answers are in the history (e.g. save it). */
  onRound?: (state: LoopState, round: number) => Promise<void> | void;
  stopWhen?: {
    /** Asked before each tool round's model call. */
    beforeRound?: StopCondition<S>[];
    /** Asked after each tool round, once `onRound` has run. */
    afterRound?: StopCondition<S>[];
    /** Asked before the answer-now turn a cap leads to. */
    beforeAnswerNow?: StopCondition<S>[];
  };
  /** What counts as done: a turn without tool calls whose text `parse` accepts. */
  done: {
    parse: (text: string | undefined) => A | undefined;
    /**
     * When the text is not an answer: "repair" asks once more without tools with the text and
     * `repairNudge` in the history; "answer-now" goes straight to the answer-now turn.
     */
    unparsed: "repair" | "answer-now";
    repairNudge?: string;
  };
  /** The turn without tools that asks for the answer when a cap has run out. */
  answerNow: {
    schema: z.ZodType<A>;
    nudge: (why: AnswerNowReason) => string;
    /**
     * The answer when the repair or answer-now turn brings no valid answer (ModelOutputError);
     * without it that error is thrown.
     */
    unanswerable?: (why: AnswerNowReason) => A;
  };
}

export type LoopEnd<A, S> =
  | {
      kind: "answered";
      answer: A;
      round: number;
      /** The model's own text, as it answered. */
      text: string | undefined;
      /** Whether the repair turn wrote the answer. */
      repaired: boolean;
      /** The model of the round that answered (a repair may come from another, after a fallback). */
      roundModel: string;
    }
  | { kind: "answered-now"; answer: A; why: AnswerNowReason; nudge: Message; round: number }
  // A loop configured without stop conditions (S = never) cannot end stopped.
  | ([S] extends [never] ? never : { kind: "stopped"; stop: S; round: number });

export class ToolLoop<A, S> {
  private readonly config: ToolLoopConfig<A, S>;
  private current: LoopState;

  constructor(config: ToolLoopConfig<A, S>) {
    this.config = config;
    this.current = {
      messages: config.messages,
      rounds: config.completedRounds ?? 0,
      usage: config.usage ?? ZERO_USAGE,
      model: config.model.name,
      toolCalls: 0,
    };
  }

  /** The state as of now; read it from hooks that run while a model call is in flight. */
  get state(): LoopState {
    return this.current;
  }

  async run(): Promise<LoopEnd<A, S>> {
    const { config } = this;
    const { maxRounds } = config;
    for (let round = this.current.rounds + 1; round <= maxRounds; round++) {
      if (this.toolCallsLeft() === 0) return this.answerNow("tool-calls", round - 1);
      const before = await this.firstStop(config.stopWhen?.beforeRound, round);
      if (before !== undefined) return this.stopped(before, round);
      config.deadline?.throwIfAborted();
      const response = await this.generate({
        ...config.request(round, false, this.current),
        messages: [...config.messages],
        tools: [...config.tools],
      });
      this.update({ last: response });
      // An answer that arrives after the deadline is not acted on (its tools would run late).
      config.deadline?.throwIfAborted();
      if (response.toolCalls.length === 0) {
        const answer = config.done.parse(response.text);
        if (answer !== undefined) return this.answered(answer, round, response, false);
        if (config.done.unparsed === "answer-now") return this.answerNow("unparsed", round);
        return this.repair(round, response);
      }
      await this.toolRound(round, response);
      const after = await this.firstStop(config.stopWhen?.afterRound, round);
      if (after !== undefined) return this.stopped(after, round);
    }
    return this.answerNow(this.toolCallsLeft() === 0 ? "tool-calls" : "rounds", maxRounds);
  }

  private async toolRound(round: number, response: GenerateResponse): Promise<void> {
    const { config } = this;
    config.messages.push({
      role: "model",
      ...(response.text ? { text: response.text } : {}),
      toolCalls: response.toolCalls,
    });
    const turnCap = config.maxToolCallsPerTurn ?? response.toolCalls.length;
    const left = this.toolCallsLeft() ?? response.toolCalls.length;
    const admitted = response.toolCalls.slice(0, Math.min(turnCap, left));
    const refusal: Refusal =
      left < turnCap ? { kind: "total", cap: config.maxToolCalls ?? left } : { kind: "turn", cap: turnCap };
    const ran = await config.runCalls(admitted, {
      round,
      usage: this.current.usage,
      spend: (usage) => this.update({ usage: addUsage(this.current.usage, usage) }),
    });
    this.update({ toolCalls: this.current.toolCalls + admitted.length });
    // Refusals come after the calls that ran, in the turn's order.
    const refuse = config.refuseCall ?? refusedCall;
    const refused = response.toolCalls.slice(admitted.length).map((call) => refuse(call, refusal));
    // The deadline fired while the tools ran: nothing more is recorded or asked for.
    config.deadline?.throwIfAborted();
    config.messages.push({ role: "tool", responses: [...ran, ...refused] });
    this.update({ rounds: round });
    await config.onRound?.(this.current, round);
  }

  /** The answer was not in the required format: one turn without tools repairs it. */
  private async repair(round: number, response: GenerateResponse): Promise<LoopEnd<A, S>> {
    const nudge: Message = { role: "user", text: this.config.done.repairNudge ?? "" };
    const answer = await this.structured(
      round,
      [{ role: "model", text: response.text ?? "" }, nudge],
      "unparsed",
    );
    return this.answered(answer, round, response, true);
  }

  private async answerNow(why: AnswerNowReason, round: number): Promise<LoopEnd<A, S>> {
    const { config } = this;
    // A cap ran out between turns; an unparsed answer has just passed the checks of its round.
    if (why !== "unparsed") {
      const stop = await this.firstStop(config.stopWhen?.beforeAnswerNow, round + 1);
      if (stop !== undefined) return this.stopped(stop, round + 1);
      config.deadline?.throwIfAborted();
    }
    // Not appended to the history: a saved history must not end with this request.
    const nudge: Message = { role: "user", text: config.answerNow.nudge(why) };
    const answer = await this.structured(round + 1, [nudge], why);
    return { kind: "answered-now", answer, why, nudge, round };
  }

  private async structured(round: number, extra: Message[], why: AnswerNowReason): Promise<A> {
    const { config } = this;
    try {
      const result = await generateStructured(
        config.model,
        { ...config.request(round, true, this.current), messages: [...config.messages, ...extra] },
        config.answerNow.schema,
      );
      this.update({ usage: addUsage(this.current.usage, result.usage), model: result.model });
      return result.value;
    } catch (error) {
      const fallback = config.answerNow.unanswerable;
      if (!fallback || !(error instanceof ModelOutputError)) throw error;
      return fallback(why);
    }
  }

  private async generate(request: GenerateRequest): Promise<GenerateResponse> {
    const response = await this.config.model.generate(request);
    this.update({ usage: addUsage(this.current.usage, response.usage), model: response.model });
    return response;
  }

  private answered(answer: A, round: number, response: GenerateResponse, repaired: boolean): LoopEnd<A, S> {
    return { kind: "answered", answer, round, text: response.text, repaired, roundModel: response.model };
  }

  private stopped(stop: S, round: number): LoopEnd<A, S> {
    // Only reached with a condition's answer, so S is not never here; TypeScript cannot see
    // that through the conditional type, hence the one cast.
    return { kind: "stopped", stop, round } as LoopEnd<A, S>;
  }

  private async firstStop(conditions: StopCondition<S>[] | undefined, round: number): Promise<S | undefined> {
    for (const condition of conditions ?? []) {
      const stop = await condition(this.current, round);
      if (stop !== undefined) return stop;
    }
    return undefined;
  }

  /** Calls the whole loop may still run; undefined when it has no such budget. */
  private toolCallsLeft(): number | undefined {
    const { maxToolCalls } = this.config;
    return maxToolCalls === undefined ? undefined : Math.max(0, maxToolCalls - this.current.toolCalls);
  }

  private update(change: Partial<LoopState>): void {
    this.current = { ...this.current, ...change };
  }
}

/** A refusal the model can read and act on: ask again next turn, or answer. */
export function refusedCall(call: ToolCallRequest, refusal: Refusal): ToolResponse {
  const summary =
    refusal.kind === "turn"
      ? `refused: at most ${refusal.cap} tool call(s) run per turn; ask for it again in your next turn if you still need it.`
      : `refused: the ${refusal.cap} tool call(s) this loop may make are spent; answer from what you have.`;
  return { id: call.id, name: call.name, response: { ok: false, summary } };
}

/** Tokens in and out: what a budget counts. */
export function tokensSpent(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens;
}
