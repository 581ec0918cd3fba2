import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { StepExecutorBrief } from "../../../functions/src/agent/briefs.js";
import { askStepExecutor } from "../../../functions/src/agent/step-executor.js";
import type { StepReport, StepResult, ToolCall } from "../../../functions/src/domain/results.js";
import type { GenerateRequest, Message } from "../../../functions/src/model/port.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { plan, step, stepResult } from "../../fixtures/plans.js";
import { sccFinding } from "../../fixtures/scc.js";
import { ScriptedModel, type ScriptedResponse } from "../../helpers/scripted-model.js";
import { splitFences } from "../prompts/support.js";
import { countFlows, deleteProject, lookupIp, PureRegistry, whois } from "./support.js";

const finding = sccFinding("v1-cryptominer");
const theStep = step("pool-check", {
  description: "Check whether 45.9.148.108 is a mining pool and count flows to it",
  tools: ["lookup_ip", "count_flows"],
  expected: "a listed pool and flows before eventTime",
});
const thePlan = plan([
  step("intel", { status: "done", description: "Look up the finding's indicators" }),
  theStep,
]);

const report: StepReport = {
  outcome: "answered",
  summary: "45.9.148.108 is a supportxmr pool and web-1 sent 412 flows to it.",
  facts: ["lookup_ip: 45.9.148.108 listed as supportxmr"],
  iocs: [{ type: "domain", value: "pool.supportxmr.com", context: "pool domain" }],
};

const NOW = new Date("2024-05-14T10:00:00.000Z");

function setup(
  script: ScriptedResponse[],
  options: {
    maxIterations?: number;
    priorResults?: StepResult[];
    deny?: string[];
    tokenAllowance?: number;
  } = {},
) {
  const registry = new PureRegistry([lookupIp, countFlows, deleteProject, whois]);
  const toolbox = new ToolBox(registry, (name) => !(options.deny ?? []).includes(name));
  const model = new ScriptedModel({ executor: script });
  const calls: ToolCall[] = [];
  const run = () =>
    askStepExecutor({
      investigationId: "inv-test",
      finding,
      plan: thePlan,
      step: theStep,
      priorResults: options.priorResults ?? [],
      model,
      toolbox,
      maxIterations: options.maxIterations ?? 4,
      logger: silentLogger,
      now: () => NOW,
      onToolCall: (c) => calls.push(c),
      ...(options.tokenAllowance === undefined ? {} : { tokenAllowance: options.tokenAllowance }),
    });
  return { registry, toolbox, model, calls, run };
}

const declared = (r: GenerateRequest) => r.tools?.map((t) => t.name);
const ctx = (r: GenerateRequest) => r.brief as StepExecutorBrief;

describe("askStepExecutor: the tool-calling loop", () => {
  it("declares only the step's tools, runs the call, feeds the response back and takes the final report", async () => {
    const { model, registry, calls, run } = setup([
      { toolCalls: [{ id: "c1", name: "lookup_ip", args: { ip: "45.9.148.108" } }] },
      { json: report },
    ]);
    const result = await run();

    assert.equal(model.requests.length, 2);
    const [first, second] = model.requests as [GenerateRequest, GenerateRequest];
    for (const r of [first, second]) {
      assert.equal(r.brief.role, "executor");
      assert.deepEqual(declared(r), ["lookup_ip", "count_flows"]);
    }
    assert.ok(first.system.includes("You have at most 4 rounds of tool calls."));
    assert.equal(first.messages.length, 1);
    const user = first.messages[0]!;
    assert.ok(
      user.role === "user" &&
        user.text.includes("Your step `pool-check`") &&
        user.text.includes('<<<UNTRUSTED_DATA kind="plan_step">>>'),
    );
    assert.deepEqual(
      [ctx(first).iteration, ctx(first).finalReportOnly, ctx(second).iteration],
      [1, false, 2],
    );

    const expectedResponse = {
      ok: true,
      summary: "45.9.148.108 is a known supportxmr mining pool",
      untrusted_data: { ip: "45.9.148.108", listed: true, pool: "supportxmr" },
    };
    assert.deepEqual(second.messages.slice(1), [
      { role: "model", toolCalls: [{ id: "c1", name: "lookup_ip", args: { ip: "45.9.148.108" } }] },
      { role: "tool", responses: [{ id: "c1", name: "lookup_ip", response: expectedResponse }] },
    ] satisfies Message[]);

    assert.deepEqual(registry.runs, [
      { name: "lookup_ip", args: { ip: "45.9.148.108" }, investigationId: "inv-test" },
    ]);
    assert.equal(result.stepId, "pool-check");
    assert.equal(result.status, "done");
    assert.equal(result.outcome, "answered");
    assert.equal(result.summary, report.summary);
    assert.deepEqual(result.facts, report.facts);
    assert.equal(result.iterations, 2);
    assert.equal(result.error, undefined);
    assert.deepEqual(result.iocs, [
      { type: "domain", value: "pool.supportxmr.com", context: "pool domain" },
      { type: "ip", value: "45.9.148.108", context: "supportxmr mining pool" },
    ]);
    assert.equal(result.toolCalls.length, 1);
    const { durationMs, ...call } = result.toolCalls[0]!;
    assert.ok(durationMs >= 0);
    assert.deepEqual(call, {
      id: "c1",
      name: "lookup_ip",
      args: { ip: "45.9.148.108" },
      ok: true,
      summary: "45.9.148.108 is a known supportxmr mining pool",
      data: { ip: "45.9.148.108", listed: true, pool: "supportxmr" },
    });
    assert.deepEqual(calls, result.toolCalls, "onToolCall sees every call");
    assert.equal(result.startedAt, NOW.toISOString());
  });

  it("runs several calls of one round and answers each by id", async () => {
    const { model, registry, run } = setup([
      {
        toolCalls: [
          { id: "a", name: "lookup_ip", args: { ip: "45.9.148.108" } },
          { id: "b", name: "count_flows", args: { destination: "45.9.148.108" } },
        ],
      },
      { json: report },
    ]);
    const result = await run();
    const toolMessage = model.requests[1]!.messages[2];
    assert.ok(toolMessage && toolMessage.role === "tool");
    assert.deepEqual(
      toolMessage.responses.map((r) => [r.id, r.name, r.response.summary]),
      [
        ["a", "lookup_ip", "45.9.148.108 is a known supportxmr mining pool"],
        ["b", "count_flows", "412 flows to 45.9.148.108"],
      ],
    );
    assert.deepEqual(
      registry.runs.map((r) => r.name),
      ["lookup_ip", "count_flows"],
    );
    assert.deepEqual(
      result.toolCalls.map((c) => [c.id, c.ok]),
      [
        ["a", true],
        ["b", true],
      ],
    );
  });

  it("refuses in code a call to a tool outside the step: never run, answered with the refusal, recorded as failed", async () => {
    const { model, registry, toolbox, run } = setup([
      {
        toolCalls: [
          { id: "x", name: "delete_project", args: { project: "acme-prod" } },
          { id: "y", name: "check_malware", args: { hash: "abc" } },
          { id: "z", name: "lookup_ip", args: { ip: "45.9.148.108" } },
        ],
      },
      { json: report },
    ]);
    const result = await run();

    assert.deepEqual(registry.runsOf("delete_project"), [], "the out-of-step tool never ran");
    assert.deepEqual(
      registry.runs.map((r) => r.name),
      ["lookup_ip"],
    );
    const refusedDelete =
      'refused: tool "delete_project" is not part of this step (allowed here: lookup_ip, count_flows)';
    const refusedUnknown = 'refused: tool "check_malware" does not exist';
    const [x, y, z] = result.toolCalls;
    assert.deepEqual(
      [x?.name, x?.ok, x?.summary, x?.error, x?.data],
      ["delete_project", false, refusedDelete, refusedDelete, null],
    );
    assert.deepEqual([y?.name, y?.ok, y?.error], ["check_malware", false, refusedUnknown]);
    assert.deepEqual([z?.name, z?.ok], ["lookup_ip", true]);

    const toolMessage = model.requests[1]!.messages[2];
    assert.ok(toolMessage && toolMessage.role === "tool");
    assert.deepEqual(toolMessage.responses[0], {
      id: "x",
      name: "delete_project",
      response: { ok: false, summary: refusedDelete, untrusted_data: null },
    });
    assert.deepEqual(
      toolbox.refusals.map((r) => [r.tool, r.investigationId]),
      [
        ["delete_project", "inv-test"],
        ["check_malware", "inv-test"],
      ],
    );
    assert.equal(result.status, "done", "one good call and a report: the step itself succeeded");
    assert.equal(result.error, undefined);
  });

  it("neither declares nor runs a step tool that configuration denies", async () => {
    const { model, registry, run } = setup(
      [
        { toolCalls: [{ id: "c", name: "count_flows", args: { destination: "45.9.148.108" } }] },
        { json: report },
      ],
      { deny: ["count_flows"] },
    );
    const result = await run();
    assert.deepEqual(declared(model.requests[0]!), ["lookup_ip"]);
    assert.deepEqual(registry.runs, []);
    assert.equal(result.toolCalls[0]?.error, 'refused: tool "count_flows" is disabled by configuration');
    assert.equal(
      result.error,
      'every tool call failed: refused: tool "count_flows" is disabled by configuration',
    );
  });

  it("at the iteration cap asks for a final report without tools and records the cap error", async () => {
    const { model, registry, run } = setup(
      [
        { toolCalls: [{ id: "r1", name: "lookup_ip", args: { ip: "45.9.148.108" } }] },
        { toolCalls: [{ id: "r2", name: "count_flows", args: { destination: "45.9.148.108" } }] },
        { json: { ...report, outcome: "answered" } },
      ],
      { maxIterations: 2 },
    );
    const result = await run();

    assert.equal(model.requests.length, 3);
    assert.deepEqual(declared(model.requests[0]!), ["lookup_ip", "count_flows"]);
    assert.deepEqual(declared(model.requests[1]!), ["lookup_ip", "count_flows"]);
    const forced = model.requests[2]!;
    assert.equal(forced.tools, undefined, "no tools on the forced report request");
    assert.ok(forced.responseSchema, "the forced report is structured output");
    assert.equal(ctx(forced).finalReportOnly, true);
    const roles = forced.messages.map((m) => m.role);
    assert.deepEqual(roles, ["user", "model", "tool", "model", "tool", "user"]);
    const ask = forced.messages.at(-1);
    assert.ok(ask && ask.role === "user");
    assert.equal(
      ask.text,
      "You have used all 2 rounds of tool calls for this step. Do not call tools; report what you found so far as the final JSON object.",
    );

    assert.deepEqual(
      registry.runs.map((r) => r.name),
      ["lookup_ip", "count_flows"],
    );
    assert.equal(result.iterations, 2);
    assert.equal(result.error, "iteration cap of 2 reached before the step finished");
    assert.equal(result.toolCalls.length, 2);
    assert.equal(result.summary, report.summary);
  });

  it("stops at its token allowance without another model call and reports what the tools found", async () => {
    const spend = { inputTokens: 500, outputTokens: 100 };
    const { model, registry, run } = setup(
      [
        { toolCalls: [{ id: "r1", name: "lookup_ip", args: { ip: "45.9.148.108" } }], usage: spend },
        {
          toolCalls: [{ id: "r2", name: "count_flows", args: { destination: "45.9.148.108" } }],
          usage: spend,
        },
        { toolCalls: [{ id: "r3", name: "lookup_ip", args: { ip: "45.9.148.109" } }], usage: spend },
        { json: report },
      ],
      { maxIterations: 6, tokenAllowance: 1_000 },
    );
    const result = await run();

    // 600 after the first round, 1200 after the second: stop there, no third call, no report call.
    assert.equal(model.requests.length, 2);
    assert.deepEqual(
      registry.runs.map((r) => r.name),
      ["lookup_ip", "count_flows"],
    );
    assert.equal(result.status, "failed");
    assert.equal(result.iterations, 2);
    assert.equal(result.usage.inputTokens + result.usage.outputTokens, 1_200);
    assert.equal(result.error, "token allowance of 1000 reached (1200 spent) before the step finished");
    assert.match(
      result.summary,
      /^Stopped at this step's share of the token budget \(1200 of 1000 tokens\) after 2 round/,
    );
    assert.equal(result.facts.length, 2);
    assert.ok(result.facts.every((f) => /^(lookup_ip|count_flows): /.test(f)));
  });

  it("a step that reports before its allowance runs as usual", async () => {
    const { model, run } = setup(
      [
        {
          toolCalls: [{ id: "r1", name: "lookup_ip", args: { ip: "45.9.148.108" } }],
          usage: { inputTokens: 300 },
        },
        { json: report, usage: { inputTokens: 300 } },
      ],
      { tokenAllowance: 1_000 },
    );
    const result = await run();
    assert.equal(model.requests.length, 2);
    assert.equal(result.status, "done");
    assert.equal(result.summary, report.summary);
  });

  it("repairs a final answer that is not the report JSON with one structured request", async () => {
    const { model, run } = setup([
      { toolCalls: [{ id: "c1", name: "lookup_ip", args: { ip: "45.9.148.108" } }] },
      { text: "It is a mining pool." },
      { json: report },
    ]);
    const result = await run();
    assert.equal(model.requests.length, 3);
    const repair = model.requests[2]!;
    assert.equal(repair.tools, undefined);
    assert.ok(repair.responseSchema);
    assert.deepEqual(repair.messages.slice(-2), [
      { role: "model", text: "It is a mining pool." },
      {
        role: "user",
        text: "Return your final report as the JSON object described in the instructions, and nothing else.",
      },
    ]);
    assert.equal(result.summary, report.summary);
  });

  it("hands earlier results over as a structured summary, not raw tool traffic", async () => {
    const facts = Array.from({ length: 10 }, (_, i) => `fact ${i + 1}`);
    const prior = stepResult("intel", {
      summary: "45.9.148.108 is listed as a supportxmr pool",
      facts,
      iocs: [{ type: "ip", value: "45.9.148.108", context: "pool" }],
      toolCalls: [
        {
          id: "t",
          name: "lookup_ip",
          args: { ip: "45.9.148.108" },
          ok: true,
          summary: "RAW_TOOL_SUMMARY",
          data: { raw: "RAW_TOOL_TRAFFIC" },
          durationMs: 5,
        },
      ],
    });
    const { model, run } = setup([{ json: report }], { priorResults: [prior] });
    await run();

    const expected = [
      {
        stepId: "intel",
        description: "Look up the finding's indicators",
        status: "done",
        outcome: "answered",
        summary: "45.9.148.108 is listed as a supportxmr pool",
        facts: facts.slice(0, 8),
        iocs: [{ type: "ip", value: "45.9.148.108", context: "pool" }],
      },
    ];
    const sent = model.requests[0]!;
    assert.deepEqual(ctx(sent).priorResults, expected);
    const user = sent.messages[0];
    assert.ok(user && user.role === "user");
    const fence = splitFences(user.text).fences.find((f) => f.kind === "earlier_step_results");
    assert.ok(fence, "earlier results are fenced as data");
    assert.deepEqual(JSON.parse(fence.body), expected);
    assert.ok(!user.text.includes("RAW_TOOL_TRAFFIC"));
    assert.ok(!user.text.includes("RAW_TOOL_SUMMARY"));
  });
});
