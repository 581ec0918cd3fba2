import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { fromRoot } from "../../../functions/src/platform/paths.js";

/**
 * Every prompt under prompts/ (partials, whose names start with `_`, excepted) must have
 * a render test here: a file in this directory that calls renderPrompt("<name>", …).
 * A new prompt without one fails this test.
 */
const promptNames = readdirSync(fromRoot("prompts"))
  .filter((f) => f.endsWith(".liquid") && !f.startsWith("_"))
  .map((f) => f.slice(0, -".liquid".length))
  .sort();

const here = fileURLToPath(new URL(".", import.meta.url));
const rendered = new Set<string>();
for (const file of readdirSync(here).filter((f) => f.endsWith(".test.ts"))) {
  const source = readFileSync(`${here}${file}`, "utf8");
  for (const match of source.matchAll(/renderPrompt\(\s*"([a-z0-9.-]+)"/g)) rendered.add(match[1]!);
}

describe("prompt render-test coverage", () => {
  it("finds the prompts of today", () => {
    for (const name of [
      "planner.system",
      "planner.user",
      "executor.system",
      "executor.user",
      "reflector.system",
      "reflector.user",
      "concluder.system",
      "concluder.user",
    ]) {
      assert.ok(promptNames.includes(name), `prompts/${name}.liquid exists`);
    }
  });

  for (const name of promptNames) {
    it(`prompts/${name}.liquid has a render test`, () => {
      assert.ok(rendered.has(name), `no test in test/unit/prompts calls renderPrompt("${name}", …)`);
    });
  }

  it("tests only prompts that exist", () => {
    assert.deepEqual(
      [...rendered].filter((n) => !promptNames.includes(n)),
      [],
    );
  });
});
