import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidWorkflowError, loadWorkflow, type StepEvent, WorkflowError } from "./index.js";
import { run, runError } from "./test-support.js";

/** Step names in the order they started. */
async function trace(yaml: string, args?: unknown): Promise<{ result: unknown; started: string[] }> {
  const started: string[] = [];
  const result = await run(yaml, args, {
    onStep: (e: StepEvent) => {
      if (e.phase === "start") started.push(e.step);
    },
  });
  return { result, started };
}

describe("switch", () => {
  it("takes the first matching condition in order", async () => {
    const yaml = `
main:
  params: [n]
  steps:
    - check:
        switch:
          - condition: \${n > 10}
            return: big
          - condition: \${n > 5}
            return: medium
          - condition: true
            return: small
`;
    assert.equal(await run(yaml, 50), "big");
    assert.equal(await run(yaml, 7), "medium");
    assert.equal(await run(yaml, 1), "small");
  });

  it("falls through to the next step when no condition matches", async () => {
    const { result, started } = await trace(`
- check:
    switch:
      - condition: \${1 > 2}
        return: unexpected
- after:
    return: fell through
`);
    assert.equal(result, "fell through");
    assert.deepEqual(started, ["check", "after"]);
  });

  it("runs a matched condition's assign and steps, then continues after the switch", async () => {
    const { result, started } = await trace(`
- check:
    switch:
      - condition: true
        assign:
          - label: small
        steps:
          - note:
              assign:
                - label: \${label + "!"}
- after:
    return: \${label}
`);
    assert.equal(result, "small!");
    assert.deepEqual(started, ["check", "note", "after"]);
  });

  it("jumps with a condition's next, and uses the step-level next when nothing matches", async () => {
    const yaml = `
main:
  params: [go]
  steps:
    - check:
        switch:
          - condition: \${go}
            next: target
        next: other
    - skipped:
        return: skipped
    - target:
        return: target
    - other:
        return: other
`;
    assert.equal(await run(yaml, true), "target");
    assert.equal(await run(yaml, false), "other");
  });

  it("raises from a condition", async () => {
    const payload = await runError(
      "- s:\n    switch:\n      - condition: true\n        raise: {code: 7, message: no}\n",
    );
    assert.deepEqual(payload, { code: 7, message: "no" });
  });

  it("requires conditions to be booleans", async () => {
    const payload = await runError(`- s:\n    switch:\n      - condition: \${1}\n        return: x\n`);
    assert.deepEqual((payload as { tags: unknown }).tags, ["TypeError"]);
  });
});

describe("next", () => {
  it("jumps forward and backward by step name", async () => {
    const { result, started } = await trace(`
- init:
    assign:
      - n: 0
- loop:
    assign:
      - n: \${n + 1}
- check:
    switch:
      - condition: \${n < 3}
        next: loop
    next: done
- never:
    return: never
- done:
    return: \${n}
`);
    assert.equal(result, 3);
    assert.deepEqual(started, ["init", "loop", "check", "loop", "check", "loop", "check", "done"]);
  });

  it("next: end stops the workflow without a value", async () => {
    const { result, started } = await trace(`
- a:
    next: end
- b:
    return: unreachable
`);
    assert.equal(result, null);
    assert.deepEqual(started, ["a"]);
  });

  it("next: end inside a subworkflow only ends that subworkflow", async () => {
    const result = await run(`
main:
  steps:
    - c:
        call: sub
        result: r
    - out:
        return: ['\${r}', after]
sub:
  steps:
    - a:
        next: end
    - b:
        return: unreachable
`);
    assert.deepEqual(result, [null, "after"]);
  });

  it("jumps out of nested steps to a step of the enclosing list", async () => {
    const { result, started } = await trace(`
- block:
    steps:
      - inner1:
          next: outer
      - inner2:
          return: unreachable
- skipped:
    return: skipped
- outer:
    return: outer
`);
    assert.equal(result, "outer");
    assert.deepEqual(started, ["block", "inner1", "outer"]);
  });
});

describe("for", () => {
  it("iterates a list with value and index", async () => {
    const result = await run(`
- init:
    assign:
      - out: []
- loop:
    for:
      value: v
      index: i
      in: ["a", "b", "c"]
      steps:
        - add:
            assign:
              - out: \${list.concat(out, string(i) + v)}
- done:
    return: \${out}
`);
    assert.deepEqual(result, ["0a", "1b", "2c"]);
  });

  it("iterates an inclusive range", async () => {
    const result = await run(`
- init:
    assign:
      - sum: 0
- loop:
    for:
      value: n
      range: [1, 5]
      steps:
        - add:
            assign:
              - sum: \${sum + n}
- done:
    return: \${sum}
`);
    assert.equal(result, 15);
  });

  it("supports continue and break", async () => {
    const result = await run(`
- init:
    assign:
      - seen: []
- loop:
    for:
      value: n
      range: [1, 10]
      steps:
        - skip_even:
            switch:
              - condition: \${n % 2 == 0}
                next: continue
        - stop:
            switch:
              - condition: \${n > 6}
                next: break
        - record:
            assign:
              - seen: \${list.concat(seen, n)}
- done:
    return: \${seen}
`);
    assert.deepEqual(result, [1, 3, 5]);
  });

  it("scopes loop variables and variables first assigned in the loop to the loop", async () => {
    const yaml = (expr: string) => `
- init:
    assign:
      - outer: 0
- loop:
    for:
      value: v
      in: [1, 2]
      steps:
        - work:
            assign:
              - outer: \${outer + v}
              - inner: \${v}
- done:
    return: \${${expr}}
`;
    assert.equal(await run(yaml("outer")), 3);
    // Reading them after the loop is refused at load time, as the loop_scope sample documents.
    for (const name of ["inner", "v"]) {
      assert.throws(
        () => loadWorkflow(yaml(name)),
        (err: unknown) =>
          err instanceof InvalidWorkflowError &&
          err.path === "main.steps[2]" &&
          err.message.includes(`variable '${name}' is not defined`),
        name,
      );
    }
  });

  it("does not modify the iterated list through the loop variable", async () => {
    const result = await run(`
- init:
    assign:
      - items: [{n: 1}]
- loop:
    for:
      value: item
      in: \${items}
      steps:
        - bump:
            assign:
              - item.n: 99
- done:
    return: \${items}
`);
    assert.deepEqual(result, [{ n: 1 }]);
  });

  it("returns from inside a loop", async () => {
    const result = await run(`
- loop:
    for:
      value: v
      in: [1, 2, 3]
      steps:
        - hit:
            switch:
              - condition: \${v == 2}
                return: \${v * 100}
- done:
    return: none
`);
    assert.equal(result, 200);
  });

  it("rejects a non-list `in` with TypeError", async () => {
    const payload = await runError(
      `- l:\n    for:\n      value: v\n      in: \${1}\n      steps:\n        - s:\n            next: continue\n`,
    );
    assert.deepEqual((payload as { tags: unknown }).tags, ["TypeError"]);
  });
});

describe("subworkflows", () => {
  const yaml = `
main:
  params: [args]
  steps:
    - one:
        call: greet
        args:
          name: \${args.name}
        result: a
    - two:
        call: greet
        args:
          name: \${args.name}
          greeting: Bonjour
        result: b
    - out:
        return: ['\${a}', '\${b}']
greet:
  params: [name, greeting: Hello]
  steps:
    - build:
        return: \${greeting + ", " + name}
`;

  it("passes args by name, applies defaults and returns the value", async () => {
    assert.deepEqual(await run(yaml, { name: "Ada" }), ["Hello, Ada", "Bonjour, Ada"]);
  });

  it("gives each call its own variables", async () => {
    const result = await run(`
main:
  steps:
    - init:
        assign:
          - x: outer
    - c:
        call: sub
        result: r
    - out:
        return: ['\${x}', '\${r}']
sub:
  steps:
    - s:
        assign:
          - x: inner
    - r:
        return: \${x}
`);
    assert.deepEqual(result, ["outer", "inner"]);
  });

  it("supports recursion", async () => {
    const result = await run(`
main:
  steps:
    - c:
        call: fact
        args:
          n: 5
        result: r
    - out:
        return: \${r}
fact:
  params: [n]
  steps:
    - base:
        switch:
          - condition: \${n <= 1}
            return: 1
    - rec:
        call: fact
        args:
          n: \${n - 1}
        result: sub
    - out:
        return: \${n * sub}
`);
    assert.equal(result, 120);
  });

  it("propagates errors raised in a subworkflow to the caller", async () => {
    await assert.rejects(
      run("main:\n  steps:\n    - c:\n        call: bad\nbad:\n  steps:\n    - r:\n        raise: boom\n"),
      (err: unknown) => err instanceof WorkflowError && err.payload === "boom",
    );
  });
});
