import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidWorkflowError, loadWorkflow, UnsupportedConstructError } from "./index.js";
import { run } from "./test-support.js";

function rejects(
  yaml: string,
  kind: typeof UnsupportedConstructError | typeof InvalidWorkflowError,
  path: string,
) {
  assert.throws(
    () => loadWorkflow(yaml),
    (err: unknown) => {
      assert.ok(err instanceof kind, `expected ${kind.name}, got ${String(err)}`);
      assert.equal(err.path, path);
      assert.ok(err.message.startsWith(`${path}: `), err.message);
      return true;
    },
  );
}

describe("workflow forms", () => {
  it("runs a plain list of steps as an implicit main", async () => {
    const result = await run(`
- one:
    assign:
      - x: 1
- two:
    return: \${x + 1}
`);
    assert.equal(result, 2);
  });

  it("passes the runtime argument to main's single parameter", async () => {
    const result = await run(
      `
main:
  params: [input]
  steps:
    - done:
        return: \${input.name + "!"}
`,
      { name: "ferret" },
    );
    assert.equal(result, "ferret!");
  });

  it("returns null when main ends without a return step", async () => {
    assert.equal(await run("- a:\n    assign:\n      - x: 1\n"), null);
  });

  it("accepts JSON source, which is YAML too", async () => {
    const json = JSON.stringify({ main: { steps: [{ done: { return: `\${1 + 1}` } }] } });
    assert.equal(await run(json), 2);
  });
});

describe("load-time rejection of unsupported constructs", () => {
  it("rejects connector calls (googleapis.*) with the call's path", () => {
    rejects(
      `
main:
  steps:
    - init:
        assign:
          - x: 1
    - read:
        call: googleapis.firestore.v1.projects.databases.documents.get
        args:
          name: x
`,
      UnsupportedConstructError,
      "main.steps[1].call",
    );
  });

  it("rejects an exception_policy other than continueAll", () => {
    rejects(
      `
main:
  steps:
    - a:
        assign:
          - x: 1
    - b:
        assign:
          - y: 1
    - c:
        assign:
          - z: 1
    - fan:
        parallel:
          exception_policy: failFast
          branches:
            - one:
                steps:
                  - s:
                      assign:
                        - q: 1
`,
      UnsupportedConstructError,
      "main.steps[3].parallel.exception_policy",
    );
  });

  it("rejects unknown step keys", () => {
    rejects(
      "- a:\n    assign:\n      - x: 1\n    retries: 3\n",
      UnsupportedConstructError,
      "main.steps[0].retries",
    );
  });

  it("rejects unknown functions inside expressions", () => {
    rejects(`- a:\n    return: \${math.abs(-1)}\n`, UnsupportedConstructError, "main.steps[0].return");
  });

  it("rejects bool() and text.concat, which are not in the Workflows reference", () => {
    rejects(`- a:\n    return: \${bool(1)}\n`, UnsupportedConstructError, "main.steps[0].return");
    rejects(
      `- a:\n    return: \${text.concat("a", "b")}\n`,
      UnsupportedConstructError,
      "main.steps[0].return",
    );
  });

  it("rejects JavaScript operators that Workflows does not have", () => {
    rejects(`- a:\n    return: \${true && false}\n`, UnsupportedConstructError, "main.steps[0].return");
  });

  it("rejects unimplemented standard library modules as call targets", () => {
    rejects(
      "- a:\n    call: base64.encode\n    args:\n      data: x\n",
      UnsupportedConstructError,
      "main.steps[0].call",
    );
  });

  it("rejects unsupported http arguments", () => {
    rejects(
      "- a:\n    call: http.get\n    args:\n      url: https://x\n      private_service_name: s\n",
      UnsupportedConstructError,
      "main.steps[0].args.private_service_name",
    );
  });

  it("rejects positional call arguments", () => {
    rejects(
      '- a:\n    call: sys.log\n    args: ["hi", "INFO"]\n',
      UnsupportedConstructError,
      "main.steps[0].args",
    );
  });

  it("rejects return inside a parallel branch", () => {
    rejects(
      `
- fan:
    parallel:
      branches:
        - one:
            steps:
              - r:
                  return: 1
`,
      UnsupportedConstructError,
      "main.steps[0].parallel.branches[0].steps[0]",
    );
  });
});

describe("load-time rejection of invalid definitions", () => {
  it("rejects a jump to a step that does not exist", () => {
    rejects("- a:\n    next: nowhere\n", InvalidWorkflowError, "main.steps[0].next");
  });

  it("rejects a jump into a for loop body from outside", () => {
    rejects(
      `
- a:
    next: inner
- loop:
    for:
      value: v
      in: [1]
      steps:
        - inner:
            assign:
              - x: 1
`,
      InvalidWorkflowError,
      "main.steps[0].next",
    );
  });

  it("rejects break outside a loop", () => {
    rejects("- a:\n    next: break\n", InvalidWorkflowError, "main.steps[0].next");
  });

  it("rejects blocking calls inside expressions", () => {
    rejects(`- a:\n    return: \${http.get("https://x")}\n`, InvalidWorkflowError, "main.steps[0].return");
  });

  it("rejects duplicate step names in one list", () => {
    rejects("- a:\n    next: end\n- a:\n    next: end\n", InvalidWorkflowError, "main.steps[1]");
  });

  it("rejects a step with two actions", () => {
    rejects("- a:\n    assign:\n      - x: 1\n    return: 1\n", InvalidWorkflowError, "main.steps[0]");
  });

  it("rejects calls with unknown or missing subworkflow arguments", () => {
    const base = `
main:
  steps:
    - c:
        call: greet
        args:
          %ARGS%
greet:
  params: [name, greeting: "hi"]
  steps:
    - r:
        return: \${greeting + name}
`;
    rejects(base.replace("%ARGS%", "nme: x"), InvalidWorkflowError, "main.steps[0].args.nme");
    rejects(base.replace("%ARGS%", "greeting: yo"), InvalidWorkflowError, "main.steps[0].args");
  });

  it("rejects try without retry or except", () => {
    rejects("- t:\n    try:\n      assign:\n        - x: 1\n", InvalidWorkflowError, "main.steps[0]");
  });

  it("rejects an unknown named retry policy", () => {
    rejects(
      `- t:\n    try:\n      assign:\n        - x: 1\n    retry: \${http.retry_everything}\n`,
      InvalidWorkflowError,
      "main.steps[0].retry",
    );
  });

  it("reports YAML syntax errors", () => {
    assert.throws(() => loadWorkflow("- a:\n  - : :\n\t"), InvalidWorkflowError);
  });
});
