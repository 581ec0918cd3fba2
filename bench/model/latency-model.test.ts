import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { generateStructured } from "../../functions/src/model/structured.js";
import { someBrief } from "../../test/helpers/briefs.js";
import { ScriptedModel } from "../../test/helpers/scripted-model.js";
import { LatencyModel } from "./latency-model.js";

// Run with: node --import tsx --test bench/model/latency-model.test.ts

describe("LatencyModel counts repair calls (issue 36.4)", () => {
  it("marks the call that asked again after an answer broke its schema, and only that one", async () => {
    const inner = new ScriptedModel([JSON.stringify({ word: "" }), JSON.stringify({ word: "ok" })]);
    const timed = new LatencyModel(inner, { generateMs: 0 });
    const schema = z.object({ word: z.string().min(1) });
    const request = {
      brief: someBrief("planner"),
      system: "s",
      messages: [{ role: "user" as const, text: "go" }],
    };
    const answer = await generateStructured(timed, request, schema);
    assert.equal(answer.calls, 2);
    assert.deepEqual(
      timed.calls.map((c) => c.repair),
      [false, true],
    );
  });
});
