import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import {
  type LoopState,
  type StopCondition,
  ToolLoop,
  type ToolLoopConfig,
  tokensSpent,
} from "../../../functions/src/agent/tool-loop.js";
import { ModelOutputError } from "../../../functions/src/domain/errors.js";
import type { Usage } from "../../../functions/src/domain/results.js";
import type { Message, ToolCallRequest, ToolDeclaration } from "../../../functions/src/model/port.js";
import { someBrief } from "../../helpers/briefs.js";
import { ScriptedModel, type ScriptStep } from "../../helpers/scripted-model.js";

/*
 * The tool loop on its own, driven by the scripted model: each way it ends (answered,
 * repaired, answered now, stopped), each cap (rounds, calls per turn, calls in all), the stop
 * conditions and where they are asked, the deadline, and a resumed loop. The three loops that
 * configure it keep their own tests (test/unit/agent, test/unit/log-analyst, test/unit/app).
 */

const Answer = z.object({ answer: z.string() });
type Answer = z.infer<typeof Answer>;

const LOOKUP: ToolDeclaration = {
  name: "lookup",
  description: "looks a value up",
  parameters: { type: "object", properties: { value: { type: "string" } } },
};

const call = (value: string) => ({ name: "lookup", args: { value } });
const answer = (text: string) => ({ json: { answer: text } });
const usage = (inputTokens: number, outputTokens: number) => ({ usage: { inputTokens, outputTokens } });

type Stop = { why: string; round: number };

function setup(
  script: ScriptStep[],
  config: Partial<ToolLoopConfig<Answer, Stop>> = {},
): {
  model: ScriptedModel;
  messages: Message[];
  ran: ToolCallRequest[][];
  loop: ToolLoop<Answer, Stop>;
} {
  const model = new ScriptedModel(script);
  const messages: Message[] = [{ role: "user", text: "what is 203.0.113.7?" }];
  const ran: ToolCallRequest[][] = [];
  const loop = new ToolLoop<Answer, Stop>({
    model,
    messages,
    tools: [LOOKUP],
    request: (round, answerOnly) => ({
      brief: someBrief("executor"),
      system: `round ${round}${answerOnly ? " (answer only)" : ""}`,
    }),
    maxRounds: 3,
    runCalls: async (calls) => {
      ran.push(calls);
      return calls.map((c) => ({
        id: c.id,
        name: c.name,
        response: { ok: true, value: c.args.value ?? null },
      }));
    },
    done: {
      parse: (text) => {
        try {
          const parsed = Answer.safeParse(JSON.parse(text ?? ""));
          return parsed.success ? parsed.data : undefined;
        } catch {
          return undefined;
        }
      },
      unparsed: "repair",
      repairNudge: "Return the JSON answer only.",
    },
    answerNow: { schema: Answer, nudge: (why) => `Answer now (${why}).` },
    ...config,
  });
  return { model, messages, ran, loop };
}

const lastText = (messages: readonly Message[]) => {
  const last = messages.at(-1);
  return last?.role === "user" ? last.text : undefined;
};

describe("the tool loop: how it ends", () => {
  it("ends answered when the model answers without calling tools, offering the tools on that turn", async () => {
    const { model, loop, ran } = setup([{ ...answer("benign"), ...usage(100, 20) }]);
    const end = await loop.run();
    assert.equal(end.kind, "answered");
    assert.deepEqual(end.kind === "answered" && end.answer, { answer: "benign" });
    assert.equal(end.kind === "answered" && end.round, 1);
    assert.equal(model.calls.length, 1, "one model call");
    assert.deepEqual(
      model.requests[0]?.tools?.map((t) => t.name),
      ["lookup"],
    );
    assert.equal(model.requests[0]?.system, "round 1");
    assert.deepEqual(ran, [], "no tool ran");
    assert.deepEqual(loop.state.usage, { llmCalls: 1, inputTokens: 100, outputTokens: 20 });
  });

  it("runs a turn's calls, feeds their answers back in order, and counts the round", async () => {
    const { model, loop, ran, messages } = setup([
      { toolCalls: [call("a"), call("b")] },
      answer("malicious"),
    ]);
    const end = await loop.run();
    assert.equal(end.kind, "answered");
    assert.equal(end.round, 2);
    assert.deepEqual(
      ran.map((calls) => calls.map((c) => c.args.value)),
      [["a", "b"]],
    );
    assert.equal(loop.state.rounds, 1, "one tool round completed");
    assert.equal(loop.state.toolCalls, 2);
    const second = model.requests[1]?.messages ?? [];
    assert.equal(second.length, 3, "the question, the model's calls, the tools' answers");
    const tool = second[2];
    assert.equal(tool?.role, "tool");
    assert.deepEqual(tool?.role === "tool" && tool.responses.map((r) => r.response.value), ["a", "b"]);
    assert.equal(messages.length, 3, "the caller's history holds the round too");
  });

  it("repairs an answer in the wrong format with one turn without tools, the text and the nudge in its history", async () => {
    const { model, loop, messages } = setup(["it is probably benign", answer("benign")]);
    const end = await loop.run();
    assert.equal(end.kind, "answered");
    assert.equal(end.kind === "answered" && end.repaired, true);
    assert.equal(end.kind === "answered" && end.text, "it is probably benign");
    const repair = model.requests[1];
    assert.equal(repair?.tools, undefined, "no tools on the repair turn");
    assert.ok(repair?.responseSchema, "the repair asks for the schema");
    assert.equal(repair?.system, "round 1 (answer only)");
    assert.deepEqual(repair?.messages.slice(-2), [
      { role: "model", text: "it is probably benign" },
      { role: "user", text: "Return the JSON answer only." },
    ]);
    assert.equal(messages.length, 1, "the repair turn is not added to the history");
  });

  it("goes straight to the answer-now turn on an answer in the wrong format when so configured", async () => {
    const { model, loop } = setup(["prose", answer("benign")], {
      done: { parse: () => undefined, unparsed: "answer-now" },
    });
    const end = await loop.run();
    assert.equal(end.kind, "answered-now");
    assert.equal(end.kind === "answered-now" && end.why, "unparsed");
    assert.equal(lastText(model.requests[1]?.messages ?? []), "Answer now (unparsed).");
    assert.equal(
      model.requests[1]?.messages.some((m) => m.role === "model"),
      false,
      "the unparsed text is not sent back",
    );
  });
});

describe("the tool loop: caps", () => {
  it("at the iteration cap asks once more without tools, and leaves the nudge out of the history", async () => {
    const { model, loop, messages, ran } = setup(
      [{ toolCalls: [call("a")] }, { toolCalls: [call("b")] }, answer("inconclusive")],
      { maxRounds: 2 },
    );
    const end = await loop.run();
    assert.equal(end.kind, "answered-now");
    assert.equal(end.kind === "answered-now" && end.why, "rounds");
    assert.equal(end.round, 2);
    assert.equal(ran.length, 2, "two tool rounds ran");
    const last = model.requests[2];
    assert.equal(last?.tools, undefined, "the answer-now turn offers no tools");
    assert.equal(last?.system, "round 3 (answer only)");
    assert.equal(lastText(last?.messages ?? []), "Answer now (rounds).");
    assert.equal(messages.length, 5, "question + two rounds; the nudge is not kept");
    assert.deepEqual(end.kind === "answered-now" && end.nudge, {
      role: "user",
      text: "Answer now (rounds).",
    });
  });

  it("runs the first N calls of a turn and answers the rest with a refusal the model reads", async () => {
    const { model, loop, ran } = setup([{ toolCalls: [call("a"), call("b"), call("c")] }, answer("done")], {
      maxToolCallsPerTurn: 2,
    });
    await loop.run();
    assert.deepEqual(
      ran.map((calls) => calls.map((c) => c.args.value)),
      [["a", "b"]],
    );
    const tool = model.requests[1]?.messages.at(-1);
    assert.equal(tool?.role, "tool");
    const responses = tool?.role === "tool" ? tool.responses : [];
    assert.equal(responses.length, 3, "every call is answered");
    assert.equal(responses[2]?.response.ok, false);
    assert.match(String(responses[2]?.response.summary), /at most 2 tool call\(s\) run per turn/);
    assert.equal(loop.state.toolCalls, 2, "refused calls are not counted as run");
  });

  it("spends a budget of calls across turns, refuses past it, then answers now without another tool round", async () => {
    const refusals: string[] = [];
    const { model, loop, ran } = setup(
      [{ toolCalls: [call("a"), call("b")] }, { toolCalls: [call("c"), call("d")] }, answer("done")],
      {
        maxRounds: 10,
        maxToolCalls: 3,
        refuseCall: (c, refusal) => {
          refusals.push(`${c.args.value}:${refusal.kind}:${refusal.cap}`);
          return { id: c.id, name: c.name, response: { ok: false, summary: "budget spent" } };
        },
      },
    );
    const end = await loop.run();
    assert.deepEqual(
      ran.map((calls) => calls.map((c) => c.args.value)),
      [["a", "b"], ["c"]],
    );
    assert.deepEqual(refusals, ["d:total:3"]);
    assert.equal(end.kind, "answered-now");
    assert.equal(end.kind === "answered-now" && end.why, "tool-calls");
    assert.equal(model.calls.length, 3, "two tool rounds and the answer-now turn");
    assert.equal(model.requests[2]?.tools, undefined);
  });

  it("with no calls to spend, makes only the answer-now turn", async () => {
    const { model, loop } = setup([answer("from the evidence")], { maxToolCalls: 0 });
    const end = await loop.run();
    assert.equal(end.kind, "answered-now");
    assert.equal(model.calls.length, 1);
    assert.equal(model.requests[0]?.tools, undefined);
  });

  it("a resumed loop counts the rounds and usage it is handed", async () => {
    const spent: Usage = { llmCalls: 2, inputTokens: 500, outputTokens: 50 };
    const { model, loop } = setup(
      [
        { toolCalls: [call("a")], ...usage(10, 1) },
        { ...answer("x"), ...usage(5, 1) },
      ],
      {
        maxRounds: 3,
        completedRounds: 2,
        usage: spent,
      },
    );
    const end = await loop.run();
    assert.equal(model.requests[0]?.system, "round 3", "the first round asked is the third");
    assert.equal(end.kind, "answered-now", "the cap counts the resumed rounds");
    assert.equal(loop.state.rounds, 3);
    assert.equal(tokensSpent(loop.state.usage), 500 + 50 + 10 + 1 + 5 + 1);
  });
});

describe("the tool loop: stop conditions", () => {
  const stopAt =
    (round: number, why: string): StopCondition<Stop> =>
    (_state, at) =>
      at === round ? { why, round: at } : undefined;

  it("a condition before a round stops the loop without that round's model call", async () => {
    const { model, loop } = setup([{ toolCalls: [call("a")] }, answer("never asked")], {
      stopWhen: { beforeRound: [stopAt(2, "cancelled")] },
    });
    const end = await loop.run();
    assert.equal(end.kind, "stopped");
    assert.deepEqual(end.kind === "stopped" && end.stop, { why: "cancelled", round: 2 });
    assert.equal(model.calls.length, 1, "round 2 was never asked");
    assert.equal(model.remaining(), 1);
  });

  it("a condition after a round reads what the round and its tools spent", async () => {
    const seen: LoopState[] = [];
    const budget: StopCondition<Stop> = (state, round) => {
      seen.push(state);
      return tokensSpent(state.usage) >= 1_000 ? { why: "token budget", round } : undefined;
    };
    const { model, loop } = setup([{ toolCalls: [call("a")], ...usage(300, 10) }, answer("never asked")], {
      runCalls: async (calls, turn) => {
        turn.spend({ llmCalls: 3, inputTokens: 800, outputTokens: 40 });
        return calls.map((c) => ({ id: c.id, name: c.name, response: { ok: true } }));
      },
      stopWhen: { afterRound: [budget] },
    });
    const end = await loop.run();
    assert.equal(end.kind, "stopped");
    assert.deepEqual(end.kind === "stopped" && end.stop, { why: "token budget", round: 1 });
    assert.equal(model.calls.length, 1);
    assert.deepEqual(seen[0]?.usage, { llmCalls: 4, inputTokens: 1_100, outputTokens: 50 });
    assert.equal(seen[0]?.rounds, 1, "the round is counted before the condition is asked");
  });

  it("asks the conditions in order and takes the first that answers", async () => {
    const asked: string[] = [];
    const named =
      (name: string, stop: boolean): StopCondition<Stop> =>
      (_s, round) => {
        asked.push(name);
        return stop ? { why: name, round } : undefined;
      };
    const { loop } = setup([], {
      stopWhen: { beforeRound: [named("first", false), named("second", true), named("third", true)] },
    });
    const end = await loop.run();
    assert.deepEqual(end.kind === "stopped" && end.stop.why, "second");
    assert.deepEqual(asked, ["first", "second"]);
  });

  it("asks the answer-now conditions before that turn only", async () => {
    const { model, loop } = setup([{ toolCalls: [call("a")] }], {
      maxRounds: 1,
      stopWhen: { beforeAnswerNow: [(_s, round) => ({ why: "cancelled at the cap", round })] },
    });
    const end = await loop.run();
    assert.deepEqual(end.kind === "stopped" && end.stop, { why: "cancelled at the cap", round: 2 });
    assert.equal(model.calls.length, 1, "no answer-now turn");
  });

  it("a condition that throws ends the loop with its error, after the round was recorded", async () => {
    const saved: number[] = [];
    const pressure = new Error("context pressure");
    const { loop } = setup([{ toolCalls: [call("a")] }], {
      onRound: (state) => {
        saved.push(state.messages.length);
      },
      stopWhen: {
        afterRound: [
          () => {
            throw pressure;
          },
        ],
      },
    });
    await assert.rejects(loop.run(), (error) => error === pressure);
    assert.deepEqual(saved, [3], "the round was saved before the condition threw");
  });
});

describe("the tool loop: deadline and unanswerable turns", () => {
  it("makes no model call once the deadline has fired", async () => {
    const deadline = new AbortController();
    deadline.abort(new Error("step deadline"));
    const { model, loop } = setup([answer("never")], { deadline: deadline.signal });
    await assert.rejects(loop.run(), /step deadline/);
    assert.equal(model.calls.length, 0);
  });

  it("records nothing of a round whose tools ran past the deadline", async () => {
    const deadline = new AbortController();
    const saved: number[] = [];
    const { loop, messages } = setup([{ toolCalls: [call("a")] }, answer("never")], {
      deadline: deadline.signal,
      runCalls: async (calls) => {
        deadline.abort(new Error("step deadline"));
        return calls.map((c) => ({ id: c.id, name: c.name, response: { ok: true } }));
      },
      onRound: (state) => {
        saved.push(state.rounds);
      },
    });
    await assert.rejects(loop.run(), /step deadline/);
    assert.deepEqual(saved, [], "the round was not saved");
    assert.equal(messages.at(-1)?.role, "model", "the tools' answers are not in the history");
    assert.equal(loop.state.rounds, 0);
  });

  it("uses the configured answer when the answer-now turn brings no valid answer", async () => {
    const whys: string[] = [];
    const { loop } = setup([{ toolCalls: [call("a")] }, "not json", "still not json"], {
      maxRounds: 1,
      answerNow: {
        schema: Answer,
        nudge: () => "Answer now.",
        unanswerable: (why) => {
          whys.push(why);
          return { answer: "written from the record" };
        },
      },
    });
    const end = await loop.run();
    assert.equal(end.kind, "answered-now");
    assert.deepEqual(end.kind === "answered-now" && end.answer, { answer: "written from the record" });
    assert.deepEqual(whys, ["rounds"]);
  });

  it("without a configured answer, the model's bad output is the loop's error", async () => {
    const { loop } = setup(["prose", "more prose", "prose again"]);
    await assert.rejects(loop.run(), ModelOutputError);
  });
});
