import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ModelUnavailableError } from "../../../functions/src/domain/errors.js";
import { withDeadline } from "../../../functions/src/model/deadline.js";
import { withRetry } from "../../../functions/src/model/retry.js";
import { someBrief } from "../../helpers/briefs.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

describe("withDeadline", () => {
  it("hands the step's signal to every call, so a retry wait ends when the deadline fires", async () => {
    const busy = new ModelUnavailableError("503");
    const inner = new ScriptedModel([busy, "too late"]);
    const step = new AbortController();
    const model = withDeadline(
      withRetry(inner, {
        sleep: () => {
          step.abort(new Error("step deadline of 300s passed"));
          return new Promise(() => {});
        },
      }),
      step.signal,
    );
    await assert.rejects(
      model.generate({ brief: someBrief("executor"), system: "", messages: [] }),
      (e) => e === busy,
    );
    assert.equal(inner.calls.length, 1);
    assert.equal(inner.calls[0]!.request.signal?.aborted, true);
  });

  it("keeps a request's own signal too", async () => {
    const inner = new ScriptedModel(["ok"]);
    const own = new AbortController();
    const step = new AbortController();
    await withDeadline(inner, step.signal).generate({
      brief: someBrief("planner"),
      system: "",
      messages: [],
      signal: own.signal,
    });
    own.abort();
    assert.equal(inner.calls[0]!.request.signal?.aborted, true);
  });
});
