import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { ROLES, type RoleName } from "../../../functions/src/roles/index.js";

/**
 * Which packages a function loads, in a fresh process as a deployed instance would: first
 * its cold import (index + the function's module), then its runtime build. Timing is the
 * bench's job (bench/coldstart); this pins the module graph, which is what the timing
 * follows, so an eager import of a cloud SDK fails here on any machine.
 */
const execFileP = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "ferret-graph-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// A resolve hook that appends every resolved URL to the file named by GRAPH_LOG.
const HOOK = `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.GRAPH_LOG, resolved.url + "\\n");
  return resolved;
}`;
const REGISTER = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)});`;
// What a function's first request loads: its role's code and handler (entry/role-handler.ts).
const PROBE = [
  "import { appendFileSync } from 'node:fs';",
  "await import(process.env.GRAPH_INDEX);",
  "const { ROLES } = await import(process.env.GRAPH_ROLES);",
  "const role = ROLES.find((r) => r.name === process.env.GRAPH_ENTRY_POINT);",
  "await (await import(process.env.GRAPH_ROLE_HANDLER)).loadHandler(role);",
  "appendFileSync(process.env.GRAPH_LOG, '--- runtime\\n');",
  "const { buildRuntime } = await import(process.env.GRAPH_COMPOSE);",
  "await buildRuntime(process.env, (await role.definition()).needs);",
  "process.exit(0);",
].join(" ");

// The console has its own loader in index.ts; its runtime is console/compose.ts.
const CONSOLE_PROBE = [
  "import { appendFileSync } from 'node:fs';",
  "await import(process.env.GRAPH_INDEX);",
  "const m = await import(process.env.GRAPH_CONSOLE);",
  "m.consoleFunction();",
  "appendFileSync(process.env.GRAPH_LOG, '--- runtime\\n');",
  "const { buildConsoleRuntime } = await import(process.env.GRAPH_CONSOLE_COMPOSE);",
  "buildConsoleRuntime({ ...process.env, FERRET_CONSOLE_AUTH: 'local' });",
  "process.exit(0);",
].join(" ");

/** Packages (node_modules/<name> or <scope>/<name>) resolved before and after the marker. */
async function packagesOf(
  entryPoint: RoleName | "console",
): Promise<{ cold: Set<string>; built: Set<string>; coldOwn: Set<string> }> {
  const log = join(dir, `${entryPoint}.log`);
  const src = (path: string) => pathToFileURL(fromRoot(`functions/src/${path}`)).href;
  await execFileP(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      `data:text/javascript,${encodeURIComponent(REGISTER)}`,
      "--input-type=module",
      "-e",
      entryPoint === "console" ? CONSOLE_PROBE : PROBE,
    ],
    {
      cwd: fromRoot(),
      env: {
        PATH: process.env.PATH,
        GRAPH_LOG: log,
        GRAPH_INDEX: src("index.ts"),
        GRAPH_ROLES: src("roles/index.ts"),
        GRAPH_ROLE_HANDLER: src("entry/role-handler.ts"),
        GRAPH_COMPOSE: src("entry/compose.ts"),
        GRAPH_CONSOLE: src("console/function.ts"),
        GRAPH_CONSOLE_COMPOSE: src("console/compose.ts"),
        GRAPH_ENTRY_POINT: entryPoint,
        GOOGLE_CLOUD_PROJECT: "ferret-graph",
        FERRET_MODEL_PROVIDER: "offline",
        FERRET_DUCKDB_DIR: fromRoot("examples/scenarios/cryptomining/logs"),
        FERRET_STIX_BUNDLE: fromRoot("examples/scenarios/cryptomining/intel/bundle.json"),
        FERRET_WORKFLOWS_URL: "http://127.0.0.1:9",
        FERRET_CHAT_FILE: join(dir, "chat.jsonl"),
        FERRET_LOG_LEVEL: "ERROR",
      },
      timeout: 60_000,
    },
  ).catch((error: unknown) => {
    throw new Error(
      `probe of ${entryPoint} failed: ${String((error as { stderr?: string }).stderr ?? error)}`,
    );
  });
  const [before = "", afterMarker = ""] = readFileSync(log, "utf8").split("--- runtime\n");
  return { cold: packages(before), built: packages(before + afterMarker), coldOwn: ownModules(before) };
}

/** ferret's own modules (paths under functions/src/) resolved in `lines`. */
function ownModules(lines: string): Set<string> {
  const out = new Set<string>();
  for (const m of lines.matchAll(/functions\/src\/([^\s]+)\.ts/g)) if (m[1]) out.add(m[1]);
  return out;
}

function packages(lines: string): Set<string> {
  const out = new Set<string>();
  for (const m of lines.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)) if (m[1]) out.add(m[1]);
  return out;
}

/** What no function may load at cold import: every cloud and service SDK. */
const SDKS = [
  "@google-cloud/firestore",
  "@google-cloud/pubsub",
  "@google-cloud/bigquery",
  "@google-cloud/workflows",
  "@google-cloud/security-center",
  "@google-cloud/secret-manager",
  "@google/genai",
  "@duckdb/node-api",
  "@modelcontextprotocol/sdk",
  "@slack/web-api",
];
/** What no runtime built offline on local logs loads before first use. */
const NEVER_AT_BUILD = [
  "@google/genai",
  "@google-cloud/bigquery",
  "@duckdb/node-api",
  "@modelcontextprotocol/sdk",
  "@google-cloud/workflows",
];

// One function per handler module and kind of need: the rest share these graphs.
const PROBED: RoleName[] = ["planner", "ingest", "notifier", "slackEvents"];

describe("each function loads only what it uses (module graph in a fresh process)", () => {
  for (const entryPoint of PROBED) {
    it(`${entryPoint}: no SDK at cold import; the runtime build loads only what its needs name`, async () => {
      const { cold, built } = await packagesOf(entryPoint);
      // The probe saw the graph at all: every runtime holds a Firestore client.
      assert.ok(
        built.has("@google-cloud/firestore"),
        `hook recorded nothing useful: ${[...built].join(", ")}`,
      );
      assert.deepEqual(
        SDKS.filter((p) => cold.has(p)),
        [],
        `${entryPoint}'s cold import loads an SDK`,
      );
      assert.deepEqual(
        NEVER_AT_BUILD.filter((p) => built.has(p)),
        [],
        `${entryPoint}'s runtime loads what it has not used yet`,
      );
      const role = ROLES.find((r) => r.name === entryPoint);
      if (!(await role?.definition())?.needs.chat)
        assert.ok(!built.has("@slack/web-api"), `${entryPoint} posts nothing, yet loaded the Slack SDK`);
    });
  }
});

describe("a function's cold import holds its own code, not its siblings'", () => {
  it("ingest loads neither the notifier's rendering nor the memory introspector", async () => {
    const { coldOwn } = await packagesOf("ingest");
    assert.ok(coldOwn.has("app/ingest"), `hook recorded nothing useful: ${[...coldOwn].join(", ")}`);
    const siblings = [...coldOwn].filter((m) => m.startsWith("notify/") || m.startsWith("memory/"));
    assert.deepEqual(siblings, []);
  });

  it("the planner loads no other workflow role's code", async () => {
    const { coldOwn } = await packagesOf("planner");
    assert.ok(coldOwn.has("app/planner"), `hook recorded nothing useful: ${[...coldOwn].join(", ")}`);
    const others = [
      "app/step-executor",
      "app/reflector",
      "app/concluder",
      "app/compressor",
      "app/approval-responder",
    ];
    assert.deepEqual(
      others.filter((m) => coldOwn.has(m)),
      [],
    );
  });

  it("slackEvents loads none of the analystActions worker's handlers", async () => {
    const { coldOwn } = await packagesOf("slackEvents");
    assert.ok(coldOwn.has("entry/slack-events"), `hook recorded nothing useful: ${[...coldOwn].join(", ")}`);
    const worker = ["app/thread-question", "app/thread-answer", "app/reinvestigate", "app/slack-actions"];
    assert.deepEqual(
      worker.filter((m) => coldOwn.has(m)),
      [],
    );
  });

  it("console: no SDK, no IAP verifier and no CLI at cold import; its runtime builds the Firestore client", async () => {
    const { cold, built } = await packagesOf("console");
    assert.ok(built.has("@google-cloud/firestore"), `hook recorded nothing useful: ${[...built].join(", ")}`);
    assert.deepEqual(
      [...SDKS, "google-auth-library", "commander", "liquidjs"].filter((p) => cold.has(p)),
      [],
      "the console's cold import loads what its first request should",
    );
    assert.ok(
      !built.has("@opentelemetry/sdk-trace-base"),
      "without a trace file the console never loads the span-writing SDK to read spans",
    );
  });
});
