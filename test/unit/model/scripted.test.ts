import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BriefRole } from "../../../functions/src/agent/briefs.js";
import { ModelUnavailableError } from "../../../functions/src/domain/errors.js";
import { hashEmbedding } from "../../../functions/src/model/hash-embedding.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import { estimateTokens } from "../../../functions/src/model/tokens.js";
import { someBrief } from "../../helpers/briefs.js";
import { ScriptExhaustedError, ScriptedModel } from "../../helpers/scripted-model.js";

const ask = (role: BriefRole, text: string): GenerateRequest => ({
  brief: someBrief(role),
  system: "sys",
  messages: [{ role: "user", text }],
});

describe("ScriptedModel", () => {
  it("answers in order and records deep copies of what was sent", async () => {
    const model = new ScriptedModel(["one", { json: { a: 1 } }], {
      now: () => new Date("2025-01-02T03:04:05Z"),
    });
    const request = ask("planner", "plan it");
    const first = await model.generate(request);
    (request.messages[0] as { text: string }).text = "mutated later";
    const second = await model.generate(ask("planner", "again"));

    assert.equal(first.text, "one");
    assert.equal(second.text, '{"a":1}');
    assert.equal(
      model.requests[0]!.messages[0]!.role === "user" && model.requests[0]!.messages[0]!.text,
      "plan it",
    );
    assert.deepEqual(
      model.calls.map((c) => [c.index, c.role, c.stepIndex, c.at, c.response?.text]),
      [
        [0, "planner", 0, "2025-01-02T03:04:05.000Z", "one"],
        [1, "planner", 1, "2025-01-02T03:04:05.000Z", '{"a":1}'],
      ],
    );
    assert.equal(model.remaining(), 0);
  });

  it("estimates tokens as ceil(chars/4) of the serialized request and answer unless scripted", async () => {
    const model = new ScriptedModel(["abcde", { text: "x", usage: { inputTokens: 7 } }]);
    const request = ask("executor", "hello");
    const response = await model.generate(request);
    const serialized = JSON.stringify({ system: "sys", messages: request.messages });
    assert.deepEqual(response.usage, {
      llmCalls: 1,
      inputTokens: Math.ceil(serialized.length / 4),
      outputTokens: 2,
    });
    assert.equal(estimateTokens("abcde"), 2);
    const scripted = await model.generate(request);
    assert.deepEqual(scripted.usage, { llmCalls: 1, inputTokens: 7, outputTokens: 1 });
  });

  it("serves keyed scripts per purpose and passes the per-purpose index to functions", async () => {
    const seen: Array<[string, number]> = [];
    const model = new ScriptedModel({
      planner: ["plan"],
      executor: [
        (req, i) => {
          seen.push([req.brief.role, i]);
          return { toolCalls: [{ name: "query_logs", args: { q: "x" } }] };
        },
        async (_req, i) => `done ${i}`,
      ],
    });
    const a = await model.generate(ask("executor", "step 1"));
    const b = await model.generate(ask("planner", "plan"));
    const c = await model.generate(ask("executor", "step 1 again"));

    assert.deepEqual(a.toolCalls, [{ id: "scripted-0-0", name: "query_logs", args: { q: "x" } }]);
    assert.equal(a.text, undefined);
    assert.equal(b.text, "plan");
    assert.equal(c.text, "done 1");
    assert.deepEqual(seen, [["executor", 0]]);
    assert.equal(model.requestsFor("executor").length, 2);
    assert.equal(model.requestsFor("planner").length, 1);
  });

  it("throws scripted errors and records them", async () => {
    const model = new ScriptedModel([new ModelUnavailableError("429 from script"), "ok"]);
    await assert.rejects(model.generate(ask("reflector", "r")), ModelUnavailableError);
    assert.equal((await model.generate(ask("reflector", "r"))).text, "ok");
    assert.ok(model.calls[0]!.error instanceof ModelUnavailableError);
    assert.equal(model.calls[0]!.response, undefined);
  });

  it("fails loudly when the script runs out", async () => {
    const model = new ScriptedModel({ planner: ["only"] });
    await model.generate(ask("planner", "p"));
    await assert.rejects(model.generate(ask("planner", "p2")), (error: unknown) => {
      assert.ok(error instanceof ScriptExhaustedError);
      assert.match(error.message, /no response left for role "planner" \(call 2, 1 scripted\)/);
      assert.match(error.message, /p2/);
      return true;
    });
    await assert.rejects(model.generate(ask("concluder", "c")), ScriptExhaustedError);
  });

  it("simulates latency through the injected sleep", async () => {
    const slept: number[] = [];
    const model = new ScriptedModel(["a", "b"], {
      latencyMs: (_req, i) => 100 * (i + 1),
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    await model.generate(ask("planner", "1"));
    await model.generate(ask("planner", "2"));
    assert.deepEqual(slept, [100, 200]);
  });

  it("embeds deterministically with unit vectors, or as scripted", async () => {
    const model = new ScriptedModel([]);
    const [a, b, c] = await model.embed({
      texts: [
        "gcloud iam grant to evil@example.com",
        "gcloud iam grant to evil@example.com",
        "ssh brute force",
      ],
      task: "RETRIEVAL_DOCUMENT",
    });
    assert.equal(a!.length, 768);
    assert.deepEqual(a, b);
    assert.ok(Math.abs(Math.hypot(...a!) - 1) < 1e-9);
    assert.notDeepEqual(a, c);
    assert.deepEqual(model.embedRequests, [
      {
        texts: [
          "gcloud iam grant to evil@example.com",
          "gcloud iam grant to evil@example.com",
          "ssh brute force",
        ],
        task: "RETRIEVAL_DOCUMENT",
      },
    ]);
    const scripted = new ScriptedModel([], { embed: (req) => req.texts.map(() => [1, 0]) });
    assert.deepEqual(await scripted.embed({ texts: ["x"], task: "RETRIEVAL_QUERY", dimensions: 2 }), [
      [1, 0],
    ]);
  });
});

describe("hashEmbedding", () => {
  const cosine = (x: number[], y: number[]) => x.reduce((sum, v, i) => sum + v * y[i]!, 0);

  it("gives shared words a higher similarity than unrelated text", () => {
    const base = hashEmbedding("service account key created for sa-backup@proj.iam.gserviceaccount.com");
    const near = hashEmbedding("key created for sa-backup@proj.iam.gserviceaccount.com yesterday");
    const far = hashEmbedding("outbound traffic to tor exit node");
    assert.ok(cosine(base, near) > 0.5);
    assert.ok(cosine(base, near) > cosine(base, far));
  });

  it("maps empty text to a unit vector and respects dimensions", () => {
    const empty = hashEmbedding("", 8);
    assert.deepEqual(empty, [1, 0, 0, 0, 0, 0, 0, 0]);
  });
});

describe("ScriptedModel.remaining", () => {
  it("counts unconsumed steps per purpose, zero for purposes without a script", async () => {
    const model = new ScriptedModel({ planner: ["a", "b"], executor: ["c"] });
    await model.generate(ask("planner", "p"));
    assert.equal(model.remaining(), 2);
    assert.equal(model.remaining("planner"), 1);
    assert.equal(model.remaining("concluder"), 0);
  });
});
