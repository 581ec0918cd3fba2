import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ENV_OVERRIDES, PROCESS_ENV_VARIABLES } from "../../../functions/src/config/config.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";

// docs/configuration.md is the reference users read; it must list every override the code honours.
test("docs/configuration.md documents every FERRET_* override with its key", () => {
  const doc = readFileSync(fromRoot("docs/configuration.md"), "utf8");
  for (const [variable, { path }] of Object.entries(ENV_OVERRIDES)) {
    const row = doc.split("\n").find((line) => line.startsWith(`| \`${variable}\` |`));
    assert.ok(row, `${variable} is missing from docs/configuration.md`);
    assert.ok(row.includes(`\`${path}\``), `${variable}'s row does not name the key ${path}`);
  }
});

// Every other FERRET_* variable the config accepts must be documented too, since any
// undocumented one is refused as a typo.
test("docs/configuration.md lists every FERRET_* variable read outside the overlay", () => {
  const doc = readFileSync(fromRoot("docs/configuration.md"), "utf8");
  for (const variable of PROCESS_ENV_VARIABLES) {
    assert.ok(doc.includes(`\`${variable}\``), `${variable} is missing from docs/configuration.md`);
  }
});
