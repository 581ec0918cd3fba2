import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidWorkflowError, loadWorkflow } from "./index.js";
import { run, runError } from "./test-support.js";

// Definitions Cloud Workflows refuses at deploy time must fail loadWorkflow too, with
// the YAML path of the offending construct.
function refused(yaml: string, path: string, detail: RegExp): void {
  assert.throws(
    () => loadWorkflow(yaml),
    (err: unknown) => {
      assert.ok(err instanceof InvalidWorkflowError, `expected InvalidWorkflowError, got ${String(err)}`);
      assert.equal(err.path, path);
      assert.match(err.message, detail);
      return true;
    },
  );
}

describe("duplicate step names", () => {
  const nested: [string, string, string][] = [
    [
      "a for body",
      `
- dup:
    assign:
      - x: 1
- loop:
    for:
      value: v
      in: [1]
      steps:
        - dup:
            assign:
              - y: 2
`,
      "main.steps[1].for.steps[0]",
    ],
    [
      "a parallel branch",
      `
- fan:
    parallel:
      branches:
        - b1:
            steps:
              - same:
                  assign:
                    - a: 1
        - b2:
            steps:
              - same:
                  assign:
                    - b: 1
`,
      "main.steps[0].parallel.branches[1].steps[0]",
    ],
    [
      "an except body",
      `
- guarded:
    try:
      steps:
        - work:
            raise: boom
    except:
      as: e
      steps:
        - work:
            return: handled
`,
      "main.steps[0].except.steps[0]",
    ],
    [
      "a switch body",
      `
- first:
    assign:
      - x: 1
- choose:
    switch:
      - condition: true
        steps:
          - first:
              return: 1
`,
      "main.steps[1].switch[0].steps[0]",
    ],
  ];
  for (const [where, yaml, path] of nested) {
    it(`refuses a name repeated in ${where}`, () => refused(yaml, path, /duplicate step name/));
  }

  it("allows the same step name in different subworkflows and the single-step try form", async () => {
    const result = await run(`
main:
  steps:
    - step:
        try:
          call: sub
          result: r
        except:
          as: e
          steps:
            - failed:
                return: failed
    - done:
        return: \${r}
sub:
  steps:
    - step:
        return: sub
`);
    assert.equal(result, "sub");
  });
});

describe("try directly holding for (Workflows known issue)", () => {
  it("is refused, as the service refuses to deploy it", () => {
    refused(
      `
- t:
    try:
      for:
        value: v
        range: [1, 2]
        steps:
          - log:
              call: sys.log
              args:
                data: \${v}
    retry: \${http.default_retry}
`,
      "main.steps[0].try",
      /loop step name should not be empty/,
    );
  });

  it("accepts the documented workaround: a named step under try: steps:", async () => {
    const result = await run(`
- init:
    assign:
      - total: 0
- t:
    try:
      steps:
        - loopStep:
            for:
              value: v
              range: [1, 2]
              steps:
                - add:
                    assign:
                      - total: \${total + v}
    retry: \${http.default_retry}
- done:
    return: \${total}
`);
    assert.equal(result, 3);
  });
});

describe("undefined variables", () => {
  it("refuses a read of a variable that no earlier step assigns", () => {
    refused(
      `
- a:
    assign:
      - count: 1
- b:
    return: \${cuont + 1}
`,
      "main.steps[1]",
      /variable 'cuont' is not defined/,
    );
  });

  it("refuses a read before the assignment, and an element update of an unassigned variable", () => {
    refused(
      `
- a:
    return: \${later}
- b:
    assign:
      - later: 1
`,
      "main.steps[0]",
      /'later'/,
    );
    refused(
      `
- a:
    assign:
      - m.key: 1
`,
      "main.steps[0].assign[0]",
      /'m'/,
    );
    refused(
      `
- a:
    assign:
      - l: [1, 2]
      - l[idx]: 3
`,
      "main.steps[0].assign[1]",
      /'idx'/,
    );
  });

  it("refuses reading a variable of a sibling parallel branch (as parallel_shared_variables documents)", () => {
    refused(
      `
- fan:
    parallel:
      branches:
        - one:
            steps:
              - s1:
                  assign:
                    - temp2: foo
        - two:
            steps:
              - s2:
                  assign:
                    - temp: \${temp2}
`,
      "main.steps[0].parallel.branches[1].steps[0].assign[0]",
      /'temp2'/,
    );
  });

  it("refuses a shared variable that is not assigned before the parallel step", () => {
    refused(
      `
- fan:
    parallel:
      shared: [total]
      branches:
        - one:
            steps:
              - s1:
                  assign:
                    - total: 1
`,
      "main.steps[0].parallel.shared[0]",
      /'total'/,
    );
  });

  it("accepts params, loop variables, except names, switch assignments and call results", async () => {
    const result = await run(
      `
main:
  params: [input]
  steps:
    - maybe:
        switch:
          - condition: \${input.flag}
            assign:
              - picked: yes
            next: collect
    - fallback:
        assign:
          - picked: no
    - collect:
        for:
          value: v
          index: i
          in: [10, 20]
          steps:
            - inner:
                assign:
                  - last: \${v + i}
    - guarded:
        try:
          raise: boom
        except:
          as: err
          steps:
            - seen:
                assign:
                  - caught: \${err}
    - called:
        call: echo
        args:
          value: \${caught}
        result: echoed
    - done:
        return: ['\${picked}', '\${echoed}']
echo:
  params: [value]
  steps:
    - back:
        return: \${value}
`,
      { flag: true },
    );
    assert.deepEqual(result, ["yes", "boom"]);
  });
});

describe("reserved words as variable names", () => {
  const places: [string, string, string][] = [
    ["an assign target", "- a:\n    assign:\n      - next: 1\n", "main.steps[0].assign[0]"],
    ["a call result", "- a:\n    call: sys.now\n    result: end\n", "main.steps[0].result"],
    [
      "a loop variable",
      "- a:\n    for:\n      value: break\n      in: [1]\n      steps:\n        - b:\n            assign:\n              - x: 1\n",
      "main.steps[0].for.value",
    ],
    [
      "an except name",
      "- a:\n    try:\n      raise: x\n    except:\n      as: call\n      steps:\n        - b:\n            return: 1\n",
      "main.steps[0].except.as",
    ],
    ["a parameter", "main:\n  params: [for]\n  steps:\n    - a:\n        return: 1\n", "main.params[0]"],
  ];
  for (const [where, yaml, path] of places) {
    it(`refuses one as ${where}`, () => refused(yaml, path, /reserved word/));
  }

  it("keeps accepting `args` and `result`, which the published samples use as names", async () => {
    const result = await run(
      `
main:
  params: [args]
  steps:
    - a:
        assign:
          - result: \${args.x}
    - b:
        return: \${result}
`,
      { x: 7 },
    );
    assert.equal(result, 7);
  });
});

describe("parallel limits visible in the source", () => {
  it("refuses more than 10 branches", () => {
    const branches = Array.from(
      { length: 11 },
      (_, i) =>
        `        - b${i}:\n            steps:\n              - s${i}:\n                  assign:\n                    - x${i}: 1\n`,
    ).join("");
    refused(
      `- fan:\n    parallel:\n      branches:\n${branches}`,
      "main.steps[0].parallel.branches",
      /at most 10/,
    );
  });

  const nestedParallel = (depth: number): string => {
    let body = "- leaf:\n    assign:\n      - x: 1\n";
    for (let d = depth; d >= 1; d--) {
      const indented = body.replace(/^/gm, "          ");
      body = `- p${d}:\n    parallel:\n      for:\n        value: v${d}\n        in: [1]\n        steps:\n${indented}`;
    }
    return body;
  };

  it("accepts parallel steps nested 2 deep and refuses 3", async () => {
    assert.equal(await run(nestedParallel(2)), null);
    refused(
      nestedParallel(3),
      "main.steps[0].parallel.for.steps[0].parallel.for.steps[0]",
      /nested at most 2 deep/,
    );
  });
});

describe("for range as one expression", () => {
  it("accepts the documented range form that is one list expression, including double bounds", async () => {
    const yaml = (bounds: string) => `
- init:
    assign:
      - low: -1.5
      - high: 1.5
      - seen: []
- loop:
    for:
      value: t
      range: \${${bounds}}
      steps:
        - keep:
            assign:
              - seen: \${list.concat(seen, t)}
- done:
    return: \${seen}
`;
    assert.deepEqual(await run(yaml("[low, high]")), [-1.5, -0.5, 0.5, 1.5]);
    assert.deepEqual(await run(yaml("[1, 1 + 2]")), [1, 2, 3]);
    const payload = await runError(yaml("[low]"));
    assert.deepEqual((payload as { tags: unknown }).tags, ["TypeError"]);
  });
});
