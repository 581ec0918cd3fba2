import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { askStepExecutor } from "../../../functions/src/agent/step-executor.js";
import { createStepJournal } from "../../../functions/src/agent/step-journal.js";
import type { FixedCall } from "../../../functions/src/domain/plan.js";
import { GeminiModel } from "../../../functions/src/model/gemini.js";
import { INJECTED_CALL_SIGNATURE } from "../../../functions/src/model/gemini-mapping.js";
import { withRetry } from "../../../functions/src/model/retry.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type {
  StepHistory,
  StepHistoryDraft,
  StepHistoryStore,
} from "../../../functions/src/ports/step-history-store.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { plan, step } from "../../fixtures/plans.js";
import { sccFinding } from "../../fixtures/scc.js";
import { FakeGemini, jsonAnswer } from "../../helpers/fake-gemini.js";
import { PureRegistry, type PureTool } from "./support.js";

/**
 * A step whose planned calls came back empty goes to the executor model with the planned round
 * as a model turn ferret wrote itself (ids `<step>-plan-<i>`). On Gemini 3 that turn is in the
 * current turn, so the strict fake (as the API) refuses it unless its first call carries a thought
 * signature; the documented dummy is what ferret must send, on the first run and on a resume
 * from the step journal alike.
 */
const finding = sccFinding("v1-cryptominer");
const NOW = new Date("2024-05-14T10:00:00.000Z");

const emptyRows: PureTool = {
  name: "flow_rows",
  description: "Flow rows to a destination.",
  parameters: { type: "object", properties: { destination: { type: "string" } } },
  run: () => ({ summary: "0 rows", data: { rows: [] } }),
};

const REPORT = { outcome: "no_data", summary: "No flows to the pool in the window.", facts: [], iocs: [] };

/** A StepHistoryStore in memory, with the port's compare-and-set (a pure unit test's store). */
class MemoryHistories implements StepHistoryStore {
  readonly saved = new Map<string, StepHistory>();
  async get(investigationId: string, stepId: string) {
    return this.saved.get(`${investigationId}/${stepId}`);
  }
  async put(investigationId: string, history: StepHistoryDraft, expectedRevision: number) {
    const key = `${investigationId}/${history.stepId}`;
    assert.equal(this.saved.get(key)?.revision ?? 0, expectedRevision);
    const stored: StepHistory = { ...history, revision: expectedRevision + 1, updatedAt: NOW.toISOString() };
    this.saved.set(key, JSON.parse(JSON.stringify(stored)) as StepHistory);
    return stored;
  }
}

const server = new FakeGemini();
let baseUrl = "";
before(async () => {
  baseUrl = await server.start();
});
after(async () => {
  await server.stop();
});
beforeEach(() => {
  server.reset();
});

function run(calls: FixedCall[], histories?: MemoryHistories) {
  const theStep = step("pool-check", { description: "Count flows to the pool", tools: ["flow_rows"], calls });
  // The executor is a "lite" role: gemini-3.1-flash-lite, a Gemini 3 model that validates signatures.
  const model = withRetry(new GeminiModel({ apiKey: "k", baseUrl }), { sleep: async () => {} });
  return askStepExecutor({
    investigationId: "inv-sig",
    finding,
    plan: plan([theStep]),
    step: theStep,
    priorResults: [],
    model,
    toolbox: new ToolBox(new PureRegistry([emptyRows]), () => true),
    maxIterations: 4,
    logger: silentLogger,
    now: () => NOW,
    ...(histories
      ? {
          journal: createStepJournal({
            store: histories,
            investigationId: "inv-sig",
            stepId: theStep.id,
            contextWindowTokens: 1_000_000,
            compressAt: 0.8,
            maxCompressions: 2,
            now: () => NOW,
          }),
        }
      : {}),
  });
}

describe("planned calls handed to a Gemini 3 executor", () => {
  it("carry the documented dummy signature, so Gemini 3 takes the seeded turn and the step is judged", async () => {
    server.reply(jsonAnswer(REPORT));
    const result = await run([
      { tool: "flow_rows", args: { destination: "pool.example" } },
      { tool: "flow_rows", args: { destination: "pool2.example" } },
    ]);

    assert.equal(server.requests.length, 1);
    const sent = server.requests[0]!;
    assert.equal(sent.model, "gemini-3.1-flash-lite");
    assert.equal(sent.refusedBy, undefined, "the API's signature rule is kept");
    const seeded = sent.contents[1]!;
    assert.equal(seeded.role, "model");
    // Only the first call of a step needs one (parallel calls: the first carries it).
    assert.deepEqual(
      seeded.parts.map((p) => [p.functionCall?.id, p.thoughtSignature]),
      [
        ["pool-check-plan-0", INJECTED_CALL_SIGNATURE],
        ["pool-check-plan-1", undefined],
      ],
    );
    assert.equal(result.status, "done");
    assert.equal(result.outcome, "no_data");
  });

  it("resumes from a journal saved without signatures (before this fix) and is still accepted", async () => {
    const histories = new MemoryHistories();
    // The journal as an earlier run left it: the seeded round saved, the model call never made.
    await histories.put(
      "inv-sig",
      {
        stepId: "pool-check",
        messages: [
          { role: "user", text: "Step pool-check: count flows to the pool." },
          {
            role: "model",
            toolCalls: [
              { id: "pool-check-plan-0", name: "flow_rows", args: { destination: "pool.example" } },
            ],
          },
          {
            role: "tool",
            responses: [
              {
                id: "pool-check-plan-0",
                name: "flow_rows",
                response: { ok: true, summary: "0 rows", untrusted_data: { rows: [] } },
              },
            ],
          },
        ],
        toolCalls: [],
        toolIocs: [],
        usage: { llmCalls: 0, inputTokens: 0, outputTokens: 0 },
        iterations: 1,
        startedAt: NOW.toISOString(),
        compressions: 0,
      },
      0,
    );
    server.reply(jsonAnswer(REPORT));
    const result = await run([{ tool: "flow_rows", args: { destination: "pool.example" } }], histories);

    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0]!.refusedBy, undefined);
    assert.equal(server.requests[0]!.contents[1]!.parts[0]!.thoughtSignature, INJECTED_CALL_SIGNATURE);
    assert.equal(result.status, "done");
  });

  it("would be refused as the API refuses it without one (the rule this relies on)", async () => {
    const response = await fetch(`${baseUrl}/v1beta/models/gemini-3.1-flash-lite:generateContent`, {
      method: "POST",
      body: JSON.stringify({
        contents: [
          { role: "user", parts: [{ text: "Step pool-check" }] },
          {
            role: "model",
            parts: [{ functionCall: { id: "pool-check-plan-0", name: "flow_rows", args: {} } }],
          },
          {
            role: "user",
            parts: [{ functionResponse: { id: "pool-check-plan-0", name: "flow_rows", response: {} } }],
          },
        ],
      }),
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { message: string; status: string } };
    assert.equal(body.error.status, "INVALID_ARGUMENT");
    assert.match(body.error.message, /^Function call is missing a thought_signature in functionCall parts\./);
    assert.match(body.error.message, /`default_api:flow_rows` , position 2\./);
  });
});
