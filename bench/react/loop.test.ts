import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type {
  EmbedRequest,
  GenerateRequest,
  GenerateResponse,
  Model,
  ToolCallRequest,
} from "../../functions/src/model/port.js";
import { silentLogger } from "../../functions/src/platform/logger.js";
import { ToolBox, type ToolboxRegistry } from "../../functions/src/tools/toolbox.js";
import { sccFinding } from "../../test/fixtures/scc.js";
import type { ReactContext } from "./context.js";
import { parseConclusion, runReact } from "./loop.js";

// Run with: node --import tsx --test bench/react/loop.test.ts

const CONCLUSION = {
  verdict: "true_positive",
  confidence: 0.9,
  severity: "HIGH",
  summary: "The miner reached the pool.",
  mitre: [],
  keyFindings: [],
  iocs: [],
  recommendedActions: [],
  openQuestions: [],
};

/** Answers from a script, one per turn, and keeps every request it was sent. */
class Scripted implements Model {
  readonly name = "scripted";
  readonly offline = true;
  readonly requests: GenerateRequest[] = [];
  constructor(private readonly turns: ({ calls: ToolCallRequest[] } | { text: string })[]) {}
  async generate(request: GenerateRequest): Promise<GenerateResponse> {
    this.requests.push(structuredClone(request));
    const turn = this.turns[this.requests.length - 1] ?? { text: "" };
    return {
      ...("text" in turn ? { text: turn.text } : {}),
      toolCalls: "calls" in turn ? turn.calls : [],
      usage: { llmCalls: 1, inputTokens: 1, outputTokens: 1 },
      model: this.name,
    };
  }
  async embed(_request: EmbedRequest): Promise<number[][]> {
    return [];
  }
}

function registry(ran: string[]): ToolboxRegistry {
  const names = ["threat_intel_lookup", "log_query"];
  return {
    names: () => names,
    declarations: () => names.map((name) => ({ name, description: name, parameters: { type: "object" } })),
    run: async (name, args) => {
      ran.push(name);
      return { ok: true, summary: `${name} answered`, data: { echo: args as never } };
    },
  };
}

function input(model: Model, ran: string[], maxTurns = 5) {
  return {
    investigationId: "react-test",
    finding: sccFinding("v1-cryptominer"),
    model,
    toolbox: new ToolBox(registry(ran), () => true),
    tables: ["syslog"],
    maxTurns,
    maxSteps: 6,
    maxIterationsPerLine: 3,
    logger: silentLogger,
  };
}

const call = (id: string, name: string): ToolCallRequest => ({ id, name, args: { q: id } });

describe("the ReAct loop", () => {
  it("sends the whole conversation and every tool on each turn, and ends on the final answer", async () => {
    const ran: string[] = [];
    const model = new Scripted([
      { calls: [call("a", "threat_intel_lookup"), call("b", "log_query")] },
      { calls: [call("c", "log_query")] },
      { text: JSON.stringify(CONCLUSION) },
    ]);
    const turns: ReactContext[] = [];
    const outcome = await runReact({ ...input(model, ran), onTurn: (context) => turns.push(context) });
    assert.equal(outcome.status, "concluded");
    assert.equal(outcome.conclusion?.verdict, "true_positive");
    assert.equal(outcome.turns, 3);
    assert.deepEqual(ran, ["threat_intel_lookup", "log_query", "log_query"]);
    assert.deepEqual(
      model.requests.map((r) => r.messages.length),
      [1, 3, 5],
      "each turn re-reads the conversation: the finding, then every call and response so far",
    );
    for (const r of model.requests) {
      assert.deepEqual(
        r.tools?.map((t) => t.name),
        ["threat_intel_lookup", "log_query"],
      );
    }
    assert.equal(turns.length, 3, "each turn's facts are handed over before its model call");
    assert.deepEqual(
      turns[2]?.calls.map((c) => c.call.id),
      ["a", "b", "c"],
      "the turn's facts carry what the tools returned",
    );
    assert.deepEqual(
      model.requests.map((r) => (r.brief.role === "executor" ? [r.brief.step.id, r.brief.iteration] : [])),
      [
        ["react", 1],
        ["react", 2],
        ["react", 3],
      ],
      "requests are briefed as one executor step whose rounds are the turns",
    );
    const toolMessage = model.requests[1]?.messages[2];
    assert.equal(toolMessage?.role, "tool");
    assert.deepEqual(toolMessage?.role === "tool" ? toolMessage.responses[0]?.response : undefined, {
      ok: true,
      summary: "threat_intel_lookup answered",
      untrusted_data: { echo: { q: "a" } },
    });
  });

  it("refuses a tool that is not registered, without running it, and carries on", async () => {
    const ran: string[] = [];
    const model = new Scripted([
      { calls: [call("x", "delete_project")] },
      { text: JSON.stringify(CONCLUSION) },
    ]);
    const outcome = await runReact(input(model, ran));
    assert.deepEqual(ran, []);
    assert.equal(outcome.toolCalls[0]?.ok, false);
    assert.match(outcome.toolCalls[0]?.summary ?? "", /does not exist/);
    assert.equal(outcome.status, "concluded");
  });

  it("fails with the reason when the final answer breaks the conclusion schema", async () => {
    const model = new Scripted([{ text: JSON.stringify({ ...CONCLUSION, verdict: "probably fine" }) }]);
    const outcome = await runReact(input(model, []));
    assert.equal(outcome.status, "failed");
    assert.match(outcome.reason ?? "", /verdict/);
  });

  it("fails when no final answer comes within the turn cap", async () => {
    const model = new Scripted(
      Array.from({ length: 9 }, (_, i) => ({ calls: [call(`c${i}`, "log_query")] })),
    );
    const outcome = await runReact(input(model, [], 3));
    assert.equal(outcome.status, "failed");
    assert.equal(model.requests.length, 3);
    assert.match(outcome.reason ?? "", /no final answer within 3 turns/);
  });
});

describe("parseConclusion", () => {
  it("says why an answer is not a conclusion", () => {
    const empty = parseConclusion(undefined);
    assert.match(empty.ok ? "" : empty.reason, /empty/);
    const notJson = parseConclusion("the verdict is benign");
    assert.equal(notJson.ok, false);
    assert.match(notJson.ok ? "" : notJson.reason, /not JSON/);
    assert.equal(parseConclusion(JSON.stringify(CONCLUSION)).ok, true);
  });
});
