import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WorkflowError } from "./index.js";
import { jsonResponse, run, runError, scriptedTransport } from "./test-support.js";

describe("raise", () => {
  it("raises a string as the error value itself", async () => {
    assert.equal(await runError('- r:\n    raise: "Something went wrong."\n'), "Something went wrong.");
  });

  it("raises a map with user-defined keys, evaluated", async () => {
    const payload = await runError(`
- init:
    assign:
      - reason: quota
- r:
    raise:
      code: 55
      message: '\${"failed: " + reason}'
      tags: ["Custom"]
`);
    assert.deepEqual(payload, { code: 55, message: "failed: quota", tags: ["Custom"] });
  });

  it("gives WorkflowError a readable message", async () => {
    await assert.rejects(
      run('- r:\n    raise:\n      message: boom\n      tags: ["A", "B"]\n'),
      (err: unknown) =>
        err instanceof WorkflowError && err.message === "boom [A, B]" && !err.deadlineExceeded,
    );
  });
});

describe("try/except", () => {
  it("exposes the caught error map through `as`, including code and tags", async () => {
    const http = scriptedTransport([jsonResponse(404, { error: "missing" })]);
    const result = await run(
      `
- fetch:
    try:
      call: http.get
      args:
        url: https://api.example.test/item
      result: response
    except:
      as: e
      steps:
        - inspect:
            return:
              code: \${e.code}
              tags: \${e.tags}
              is_http: \${"HttpError" in e.tags}
              body: \${e.body}
`,
      undefined,
      { http },
    );
    assert.deepEqual(result, { code: 404, tags: ["HttpError"], is_http: true, body: { error: "missing" } });
  });

  it("catches errors raised by expressions with their tags", async () => {
    const result = await run(`
- attempt:
    try:
      assign:
        - m: {}
        - x: \${m.missing}
    except:
      as: e
      steps:
        - out:
            return: \${e.tags}
`);
    assert.deepEqual(result, ["KeyError"]);
  });

  it("continues after the try step when the except block completes", async () => {
    const result = await run(`
- attempt:
    try:
      steps:
        - boom:
            raise: {code: 1}
        - unreachable:
            return: unreachable
    except:
      as: e
      steps:
        - note:
            assign:
              - handled: \${e.code}
- after:
    return: \${handled + 1}
`);
    assert.equal(result, 2);
  });

  it("re-raises from except to an outer try", async () => {
    const result = await run(`
- outer:
    try:
      steps:
        - inner:
            try:
              raise: first
            except:
              as: e
              steps:
                - rethrow:
                    raise: \${e + " then second"}
    except:
      as: e
      steps:
        - out:
            return: \${e}
`);
    assert.equal(result, "first then second");
  });

  it("lets a return inside try end the workflow normally", async () => {
    const result = await run(`
- t:
    try:
      return: early
    except:
      steps:
        - x:
            return: handler
- after:
    return: late
`);
    assert.equal(result, "early");
  });
});
