import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { loadWorkflow } from "./index.js";

// The production workflow must stay within what the local runner can execute; this fails
// (with the offending YAML path) as soon as it uses an unsupported construct.
describe("workflows/investigate.yaml", () => {
  it("loads with the local runner", () => {
    const path = fileURLToPath(new URL("../investigate.yaml", import.meta.url));
    const workflow = loadWorkflow(readFileSync(path, "utf8"), { sourceName: "investigate.yaml" });
    assert.ok(workflow.definition.main.body.steps.length > 0);
  });
});
