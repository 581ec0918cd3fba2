import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { run, runError, scriptedTransport } from "./test-support.js";

// Documented limits (https://cloud.google.com/workflows/quotas) enforced at run time.

function tagsOf(payload: unknown): unknown {
  assert.ok(payload !== null && typeof payload === "object" && "tags" in payload, JSON.stringify(payload));
  return payload.tags;
}

const KB = 1024;

describe("steps per execution", () => {
  it("runs 100,000 steps and fails the execution with ResourceLimitError at the next one", async () => {
    let started = 0;
    const payload = await runError(
      `
- init:
    assign:
      - n: 0
- loop:
    for:
      value: v
      range: [1, 100000]
      steps:
        - count:
            assign:
              - n: \${n + 1}
`,
      undefined,
      { onStep: (e) => (e.phase === "start" ? started++ : undefined) },
    );
    assert.deepEqual(tagsOf(payload), ["ResourceLimitError"]);
    assert.equal(started, 100_000);
  });
});

describe("variable memory and string size", () => {
  const big = (kb: number) => "x".repeat(kb * KB);

  it("refuses variables totalling more than 512 KB and frees a scope's variables when it ends", async () => {
    const yaml = `
main:
  params: [args]
  steps:
    - keep:
        assign:
          - a: \${args.s}
          - b: \${args.s}
          - c: \${args.s}
    - done:
        return: \${len(a) + len(b) + len(c)}
`;
    // The argument (100 KB) plus three copies fit; with 150 KB strings they do not.
    assert.equal(await run(yaml, { s: big(100) }), 300 * KB);
    assert.deepEqual(tagsOf(await runError(yaml, { s: big(150) })), ["ResourceLimitError"]);

    // 200 KB held by a subworkflow is released when it returns, so calling it three times fits.
    const released = `
main:
  params: [args]
  steps:
    - one:
        call: hold
        args:
          s: \${args.s}
    - two:
        call: hold
        args:
          s: \${args.s}
    - three:
        call: hold
        args:
          s: \${args.s}
        result: r
    - done:
        return: \${r}
hold:
  params: [s]
  steps:
    - copy:
        assign:
          - t: \${s}
    - out:
        return: \${len(t)}
`;
    assert.equal(await run(released, { s: big(100) }), 100 * KB);
  });

  it("counts in-place element updates", async () => {
    const yaml = `
main:
  params: [args]
  steps:
    - init:
        assign:
          - m: {}
    - fill:
        for:
          value: k
          in: ["a", "b", "c", "d"]
          steps:
            - put:
                assign:
                  - m[k]: \${args.s}
    - done:
        return: \${len(m)}
`;
    assert.equal(await run(yaml, { s: big(60) }), 4);
    assert.deepEqual(tagsOf(await runError(yaml, { s: big(120) })), ["ResourceLimitError"]);
  });

  it("refuses a string over 256 KB", async () => {
    const yaml = `
main:
  params: [args]
  steps:
    - join:
        return: \${len(args.s + args.s)}
`;
    assert.equal(await run(yaml, { s: big(128) }), 256 * KB);
    assert.deepEqual(tagsOf(await runError(yaml, { s: `${big(128)}y` })), ["ResourceLimitError"]);
  });
});

describe("HTTP responses", () => {
  const get = `
- get:
    call: http.get
    args:
      url: https://svc.test/x
    result: r
- done:
    return: \${r.code}
`;

  it("refuses a response over 2 MB", async () => {
    const body = "y".repeat(2 * KB * KB + 1);
    const http = scriptedTransport([{ status: 200, headers: { "content-type": "text/plain" }, body }]);
    assert.deepEqual(tagsOf(await runError(get, undefined, { http })), ["ResourceLimitError"]);
  });

  it("returns a 3xx response as a result and raises HttpError from 400 on", async () => {
    const redirect = scriptedTransport([{ status: 304, headers: {}, body: "" }]);
    assert.equal(await run(get, undefined, { http: redirect }), 304);
    const clientError = scriptedTransport([{ status: 400, headers: {}, body: "" }]);
    const payload = await runError(get, undefined, { http: clientError });
    assert.deepEqual(tagsOf(payload), ["HttpError"]);
  });
});

describe("subworkflow calls", () => {
  it("copies arguments and results instead of sharing them with the caller", async () => {
    const result = await run(`
main:
  steps:
    - init:
        assign:
          - m: {"x": 1}
    - change_in_callee:
        call: mutate
        args:
          value: \${m}
    - same_back:
        call: identity
        args:
          value: \${m}
        result: r
    - change_result:
        assign:
          - r.x: 3
    - done:
        return: ['\${m.x}', '\${r.x}']
mutate:
  params: [value]
  steps:
    - change:
        assign:
          - value.x: 2
identity:
  params: [value]
  steps:
    - back:
        return: \${value}
`);
    assert.deepEqual(result, [1, 3]);
  });

  it("raises RecursionError past a call stack depth of 20", async () => {
    const yaml = (depth: number) => `
main:
  steps:
    - go:
        call: down
        args:
          n: ${depth}
        result: r
    - done:
        return: \${r}
down:
  params: [n]
  steps:
    - bottom:
        switch:
          - condition: \${n <= 1}
            return: 0
    - deeper:
        call: down
        args:
          n: \${n - 1}
        result: r
    - out:
        return: \${r + 1}
`;
    assert.equal(await run(yaml(20)), 19);
    assert.deepEqual(tagsOf(await runError(yaml(21))), ["RecursionError"]);
  });

  it("raises ParallelNestingError for a third parallel level reached through calls", async () => {
    const yaml = (levels: number) => `
main:
  steps:
    - go:
        call: fan
        args:
          left: ${levels}
fan:
  params: [left]
  steps:
    - stop:
        switch:
          - condition: \${left == 0}
            return: null
    - p:
        parallel:
          for:
            value: v
            in: [1]
            steps:
              - again:
                  call: fan
                  args:
                    left: \${left - 1}
`;
    assert.equal(await run(yaml(2)), null);
    const payload = (await runError(yaml(3))) as { tags: unknown; branches: { error: unknown }[] };
    // The nesting error surfaces through the enclosing parallel steps' UnhandledBranchError.
    assert.deepEqual(payload.tags, ["UnhandledBranchError"]);
    assert.match(JSON.stringify(payload), /ParallelNestingError/);
  });
});
