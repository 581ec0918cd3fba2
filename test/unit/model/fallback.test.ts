import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BriefRole } from "../../../functions/src/agent/briefs.js";
import {
  ModelOutputError,
  ModelUnavailableError,
  TokenLimitError,
} from "../../../functions/src/domain/errors.js";
import { type FallbackReason, withFallback } from "../../../functions/src/model/fallback.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import { withRetry } from "../../../functions/src/model/retry.js";
import { someBrief } from "../../helpers/briefs.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

const ask = (role: BriefRole): GenerateRequest => ({
  brief: someBrief(role),
  system: "s",
  messages: [{ role: "user", text: role }],
});
const offline = (script: ConstructorParameters<typeof ScriptedModel>[0]) =>
  new ScriptedModel(script, { name: "offline-playbook", offline: true });

describe("withFallback", () => {
  it("serves from the primary while it works", async () => {
    const primary = new ScriptedModel(["from gemini"], { name: "gemini-2.5-flash" });
    const fallback = offline([]);
    const model = withFallback(primary, fallback);
    const response = await model.generate(ask("planner"));
    assert.equal(response.text, "from gemini");
    assert.equal(response.model, "gemini-2.5-flash");
    assert.equal(model.fellBack, false);
    assert.equal(model.reason, undefined);
    assert.equal(model.name, "gemini-2.5-flash");
    assert.equal(model.offline, false);
    assert.equal(fallback.calls.length, 0);
  });

  it("diverts on ModelUnavailableError after the primary's retries, once, and stays diverted", async () => {
    const primary = new ScriptedModel(
      [new ModelUnavailableError("503 a"), new ModelUnavailableError("503 b"), "never"],
      { name: "gemini-2.5-flash" },
    );
    const fallback = offline(["plan from playbook", "step from playbook"]);
    const reasons: FallbackReason[] = [];
    const model = withFallback(withRetry(primary, { maxAttempts: 2, sleep: async () => {} }), fallback, {
      onFallback: (reason) => reasons.push(reason),
    });

    const first = await model.generate(ask("planner"));
    assert.equal(first.text, "plan from playbook");
    assert.equal(first.model, "offline-playbook");
    assert.equal(primary.calls.length, 2, "the primary's own retries ran first");

    const second = await model.generate(ask("executor"));
    assert.equal(second.text, "step from playbook");
    assert.equal(primary.calls.length, 2, "sticky: the primary is not asked again");

    assert.equal(reasons.length, 1);
    assert.equal(reasons[0]!.from, "gemini-2.5-flash");
    assert.equal(reasons[0]!.to, "offline-playbook");
    assert.equal(reasons[0]!.role, "planner");
    assert.equal(reasons[0]!.message, "503 b");
    assert.equal(model.fellBack, true);
    assert.equal(model.reason, reasons[0]);
    assert.equal(model.name, "offline-playbook");
    assert.equal(model.offline, true);
    assert.deepEqual(
      fallback.requests.map((r) => r.brief.role),
      ["planner", "executor"],
      "the fallback gets the very same requests",
    );
  });

  it("fires onFallback once when parallel calls fail together", async () => {
    const primary = new ScriptedModel([new ModelUnavailableError("x"), new ModelUnavailableError("y")]);
    const fallback = offline(["a", "b"]);
    let fired = 0;
    const model = withFallback(primary, fallback, { onFallback: () => fired++ });
    const results = await Promise.all([model.generate(ask("executor")), model.generate(ask("executor"))]);
    assert.deepEqual(results.map((r) => r.text).sort(), ["a", "b"]);
    assert.equal(fired, 1);
  });

  it("does not divert on token-limit or output errors", async () => {
    for (const error of [new TokenLimitError("long", 2, 1), new ModelOutputError("blocked")]) {
      const fallback = offline(["unused"]);
      const model = withFallback(new ScriptedModel([error]), fallback);
      await assert.rejects(model.generate(ask("reflector")), (thrown) => thrown === error);
      assert.equal(model.fellBack, false);
      assert.equal(fallback.calls.length, 0);
    }
  });

  it("divert() switches at once for failures the wrapper cannot see, and only the first time", async () => {
    const fallback = offline(["from offline"]);
    const seen: FallbackReason[] = [];
    const model = withFallback(new ScriptedModel([], { name: "gemini-2.5-flash" }), fallback, {
      onFallback: (r) => seen.push(r),
    });
    const bad = new ModelOutputError("gemini-2.5-flash did not produce valid planner output after 2 call(s)");
    assert.equal(model.divert(bad, "planner"), true);
    assert.equal(model.divert(new ModelOutputError("again"), "executor"), false, "already diverted");
    assert.equal((await model.generate(ask("planner"))).text, "from offline");
    assert.equal(model.reason?.message, bad.message);
    assert.equal(model.reason?.role, "planner");
    assert.equal(seen.length, 1);
  });

  it("keeps embeddings on the primary unless told otherwise", async () => {
    const down = () => {
      throw new ModelUnavailableError("embed down");
    };
    const primary = new ScriptedModel([], { embed: down });
    const fallback = offline([]);
    await assert.rejects(
      withFallback(primary, fallback).embed({ texts: ["a"], task: "RETRIEVAL_QUERY" }),
      ModelUnavailableError,
    );
    assert.equal(fallback.embedRequests.length, 0);

    const opted = withFallback(new ScriptedModel([], { embed: down }), fallback, {
      fallbackEmbeddings: true,
    });
    const vectors = await opted.embed({ texts: ["a"], task: "RETRIEVAL_QUERY", dimensions: 4 });
    assert.equal(vectors[0]!.length, 4);
    assert.equal(opted.reason?.role, "embed");
  });
});
