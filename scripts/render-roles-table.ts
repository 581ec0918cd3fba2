/**
 * Writes the table of roles in docs/architecture.md from the list the code registers
 * (functions/src/roles/index.ts), between its two markers. test/unit/docs/architecture-doc.test.ts
 * fails when the page and the list differ, so a role added, renamed or rewired shows on the map.
 *
 *   npx tsx scripts/render-roles-table.ts          rewrite the table
 *   npx tsx scripts/render-roles-table.ts --check  exit 1 if it is stale
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ROLES } from "../functions/src/roles/index.js";
import type { Role, RuntimeNeeds } from "../functions/src/roles/role.js";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ARCHITECTURE_DOC = join(REPO_ROOT, "docs", "architecture.md");
const BEGIN = "<!-- roles: written by scripts/render-roles-table.ts from functions/src/roles/index.ts -->";
const END = "<!-- /roles -->";

/** Where a role is defined: functions/src/roles/<the name in kebab case>.ts. */
export function roleFile(name: string): string {
  return `functions/src/roles/${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.ts`;
}

function trigger(role: Role): string {
  if (role.trigger === "pubsub") return `Pub/Sub \`${role.topic}\``;
  return role.calledBy === "workflow" ? `the workflow (\`${role.urlEnv}\`)` : "Slack (signed requests)";
}

/** Beyond what every function has (store, bus, models; a chat sink built on the first post). */
function builds(needs: RuntimeNeeds): string {
  const parts = [
    ...(needs.tools ? ["the tools and log tables"] : []),
    ...(needs.chat ? ["the chat sink"] : []),
  ];
  return parts.join(", ") || "—";
}

/** The table, from the list and each role's file (for what its runtime builds). */
export async function rolesTable(roles: readonly Role[] = ROLES): Promise<string> {
  const rows = await Promise.all(
    roles.map(
      async (role) =>
        `| ${role.name} | ${trigger(role)} | ${builds((await role.definition()).needs)} | \`${roleFile(role.name)}\` |`,
    ),
  );
  return [
    BEGIN,
    "| role (entry point) | called by | its runtime also builds | defined in |",
    "|---|---|---|---|",
    ...rows,
    END,
  ].join("\n");
}

/** The page with its table replaced, or undefined when the markers are missing. */
export function withRolesTable(page: string, table: string): string | undefined {
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (start < 0 || end < start) return undefined;
  return page.slice(0, start) + table + page.slice(end + END.length);
}

async function main(argv: readonly string[]): Promise<number> {
  const page = readFileSync(ARCHITECTURE_DOC, "utf8");
  const next = withRolesTable(page, await rolesTable());
  if (next === undefined) {
    process.stderr.write(`docs/architecture.md has no "${BEGIN}" … "${END}" markers\n`);
    return 1;
  }
  if (argv.includes("--check")) {
    if (next === page) return 0;
    process.stderr.write(
      "docs/architecture.md's table of roles is out of date; run: npx tsx scripts/render-roles-table.ts\n",
    );
    return 1;
  }
  writeFileSync(ARCHITECTURE_DOC, next);
  process.stdout.write("wrote the table of roles in docs/architecture.md\n");
  return 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
