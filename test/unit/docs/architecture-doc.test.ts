import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { ROLES } from "../../../functions/src/roles/index.js";
import { roleFile, rolesTable, withRolesTable } from "../../../scripts/render-roles-table.js";

const doc = readFileSync(fromRoot("docs/architecture.md"), "utf8");

/** Repository paths the page names: a top-level folder of this repository, then a file with an extension. */
export function namedPaths(text: string): string[] {
  const found = text.match(
    /\b(?:functions|workflows|terraform|test|bench|prompts|docs)\/[\w./-]*\.(?:ts|yaml|tf|md)\b/g,
  );
  return [...new Set(found ?? [])];
}

test("the path finder sees paths in the picture and in prose", () => {
  assert.deepEqual(
    namedPaths(
      "│ functions/src/app/ingest.ts parse\n`workflows/investigate.yaml` and terraform/x.tf, not src/y.ts",
    ),
    ["functions/src/app/ingest.ts", "workflows/investigate.yaml", "terraform/x.tf"],
  );
});

test("every file docs/architecture.md names exists", (t) => {
  const paths = namedPaths(doc);
  t.diagnostic(`figure files named by docs/architecture.md: ${paths.length}`);
  assert.ok(paths.length >= 30, `only ${paths.length} paths found: the picture lost its file names`);
  const missing = paths.filter((path) => !existsSync(fromRoot(path)));
  assert.deepEqual(missing, [], "docs/architecture.md names files that do not exist");
});

test("the picture shows every deployed function", () => {
  for (const { name } of ROLES)
    assert.match(doc, new RegExp(`\\b${name}\\b`), `${name} is missing from docs/architecture.md`);
});

test("the table of roles is the list the code registers (scripts/render-roles-table.ts)", async () => {
  assert.equal(
    withRolesTable(doc, await rolesTable()),
    doc,
    "docs/architecture.md's table of roles differs from functions/src/roles/index.ts; run: npx tsx scripts/render-roles-table.ts",
  );
});

test("each role is defined in the file the table names, and that file defines it alone", async () => {
  for (const role of ROLES) {
    const exported = Object.values(await import(fromRoot(roleFile(role.name))));
    assert.deepEqual(
      exported,
      [await role.definition()],
      `${roleFile(role.name)} exports the ${role.name} role and nothing else`,
    );
  }
});
