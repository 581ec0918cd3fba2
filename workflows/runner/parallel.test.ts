import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type HttpResponse, type HttpTransport, InvalidWorkflowError, loadWorkflow } from "./index.js";
import { type Deferred, deferred, jsonResponse, run, settle } from "./test-support.js";

/** A transport whose responses the test releases by hand, tracking how many are in flight. */
function gatedTransport() {
  const gates = new Map<string, Deferred<HttpResponse>>();
  const started: string[] = [];
  const state = { inFlight: 0, maxInFlight: 0, open: false };
  const transport: HttpTransport = async (request) => {
    const path = new URL(request.url).pathname;
    started.push(path);
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    const gate = deferred<HttpResponse>();
    gates.set(path, gate);
    if (state.open) gate.resolve(jsonResponse(200, 0));
    try {
      return await gate.promise;
    } finally {
      state.inFlight--;
    }
  };
  const release = (path: string, body: unknown = path) => {
    const gate = gates.get(path);
    assert.ok(gate, `no request to ${path} is waiting`);
    gate.resolve(jsonResponse(200, body));
  };
  /** After a failed assertion: answer everything so no workflow is left waiting. */
  const releaseAll = () => {
    state.open = true;
    for (const gate of gates.values()) gate.resolve(jsonResponse(200, 0));
  };
  return { transport, started, state, release, releaseAll };
}

/** Runs `check` against a started workflow, never leaving it blocked on the gate. */
async function withGate(
  gate: ReturnType<typeof gatedTransport>,
  running: Promise<unknown>,
  check: () => Promise<void>,
) {
  try {
    await check();
  } finally {
    gate.releaseAll();
    await running.catch(() => undefined);
  }
}

describe("parallel branches", () => {
  const threeBranches = ["a", "b", "c"]
    .map(
      (name) => `
        - ${name}:
            steps:
              - get_${name}:
                  call: http.get
                  args:
                    url: https://svc.test/${name}
                  result: r
              - store_${name}:
                  assign:
                    - results["${name}"]: \${r.body}`,
    )
    .join("");

  it("runs branches concurrently and shows shared variable updates after the step", async () => {
    const gate = gatedTransport();
    const running = run(
      `
- init:
    assign:
      - results: {}
- fan:
    parallel:
      shared: [results]
      branches:${threeBranches}
- out:
    return: \${results}
`,
      undefined,
      { http: gate.transport },
    );
    await withGate(gate, running, async () => {
      await settle();
      // All three requests are open at once: no branch waited for another to finish.
      assert.deepEqual([...gate.started].sort(), ["/a", "/b", "/c"]);
      assert.equal(gate.state.inFlight, 3);
      gate.release("/b", "B");
      gate.release("/c", "C");
      gate.release("/a", "A");
      assert.deepEqual(await running, { a: "A", b: "B", c: "C" });
    });
  });

  it("caps in-flight branches at concurrency_limit and starts queued ones as slots free up", async () => {
    const gate = gatedTransport();
    const running = run(
      `
- init:
    assign:
      - total: 0
- fan:
    parallel:
      shared: [total]
      concurrency_limit: 2
      for:
        value: n
        in: [1, 2, 3, 4]
        steps:
          - get:
              call: http.get
              args:
                url: \${"https://svc.test/" + string(n)}
              result: r
          - add:
              assign:
                - total: \${total + r.body}
- out:
    return: \${total}
`,
      undefined,
      { http: gate.transport },
    );
    await withGate(gate, running, async () => {
      await settle();
      assert.deepEqual(gate.started, ["/1", "/2"]);
      gate.release("/2", 2);
      await settle();
      assert.deepEqual(gate.started, ["/1", "/2", "/3"]);
      gate.release("/1", 1);
      await settle();
      assert.deepEqual(gate.started, ["/1", "/2", "/3", "/4"]);
      gate.release("/3", 3);
      gate.release("/4", 4);
      assert.equal(await running, 10);
      assert.equal(gate.state.maxInFlight, 2);
    });
  });

  it("gives each iteration of a parallel for its own loop variables", async () => {
    const result = await run(`
- init:
    assign:
      - seen: {}
- fan:
    parallel:
      shared: [seen]
      for:
        value: v
        index: i
        in: ["x", "y", "z"]
        steps:
          - record:
              assign:
                - seen[v]: \${i}
- out:
    return: \${seen}
`);
    assert.deepEqual(result, { x: 0, y: 1, z: 2 });
  });

  it("lets branches read unshared parent variables and keeps branch variables local", async () => {
    const yaml = (expr: string) => `
- init:
    assign:
      - base: 10
      - out: 0
- fan:
    parallel:
      shared: [out]
      branches:
        - one:
            steps:
              - calc:
                  assign:
                    - local: \${base + 1}
                    - out: \${local}
- done:
    return: \${${expr}}
`;
    assert.equal(await run(yaml("out")), 11);
    // Reading a branch's variable after the parallel step is refused before the run starts.
    assert.throws(
      () => loadWorkflow(yaml("local")),
      (err: unknown) =>
        err instanceof InvalidWorkflowError &&
        err.path === "main.steps[2]" &&
        /variable 'local' is not defined/.test(err.message),
    );
  });
});

describe("parallel write rules", () => {
  it("rejects at load time an assignment to a parent variable missing from shared", () => {
    assert.throws(
      () =>
        loadWorkflow(`
- init:
    assign:
      - input: [1, 2]
      - my_result: {}
- fan:
    parallel:
      shared: [my_result]
      branches:
        - ok:
            steps:
              - w:
                  assign:
                    - my_result["x"]: 1
                    - temp: 2
        - bad:
            steps:
              - w2:
                  assign:
                    - input: 5
`),
      (err: unknown) =>
        err instanceof InvalidWorkflowError &&
        err.path === "main.steps[1].parallel.branches[1].steps[0].assign[0]" &&
        err.message.includes("'input'"),
    );
  });

  it("also rejects call results and nested parallel steps that do not share the variable", () => {
    assert.throws(
      () =>
        loadWorkflow(`
- init:
    assign:
      - x: 0
- outer:
    parallel:
      shared: [x]
      branches:
        - b:
            steps:
              - inner:
                  parallel:
                    branches:
                      - c:
                          steps:
                            - get:
                                call: sys.now
                                result: x
`),
      (err: unknown) => err instanceof InvalidWorkflowError && err.path.endsWith(".steps[0].result"),
    );
  });

  it("fails at run time, uncatchably, when a jump hides the write from the static check", async () => {
    // `counter` is defined after the parallel step in the file but before it at run time.
    const yaml = `
- start:
    next: define
- guarded:
    try:
      steps:
        - fan:
            parallel:
              branches:
                - b:
                    steps:
                      - w:
                          assign:
                            - counter: 1
    except:
      steps:
        - swallowed:
            return: caught
    next: done
- define:
    assign:
      - counter: 0
    next: guarded
- done:
    return: \${counter}
`;
    await assert.rejects(run(yaml), InvalidWorkflowError);
  });
});

describe("parallel errors", () => {
  it("lets other branches finish, then raises UnhandledBranchError listing the failures", async () => {
    const result = await run(
      `
- init:
    assign:
      - done: []
- guarded:
    try:
      steps:
        - fan:
            parallel:
              shared: [done]
              branches:
                - bad:
                    steps:
                      - fail:
                          raise:
                            code: 13
                            message: broken
                - good:
                    steps:
                      - sleep:
                          call: sys.sleep
                          args:
                            seconds: 1
                      - mark:
                          assign:
                            - done: \${list.concat(done, "good")}
    except:
      as: e
      steps:
        - out:
            return:
              tags: \${e.tags}
              failed: \${e.branches}
              done: \${done}
`,
      undefined,
      { sleep: async () => undefined },
    );
    assert.deepEqual(result, {
      tags: ["UnhandledBranchError"],
      failed: [{ id: "bad", error: { code: 13, message: "broken" } }],
      done: ["good"],
    });
  });
});
