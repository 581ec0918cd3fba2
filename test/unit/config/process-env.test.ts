import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { fromRoot } from "../../../functions/src/platform/paths.js";

/**
 * One config: the process environment is read by the config (config.ts, environment.ts via
 * its callers) and the composition roots that hand it on, nowhere else. A new read
 * elsewhere fails here; read the setting through the config, or add the file below with
 * the reason it is a composition root.
 */
const ALLOWED: Record<string, string> = {
  "functions/src/config/config.ts": "loadConfig's default environment",
  "functions/src/entry/compose.ts": "the functions' composition root",
  "functions/src/console/compose.ts": "the web console's composition root",
  // The CLI's commands each compose their own backend from the environment.
  "functions/src/cli/console.ts": "CLI: serves the console over the emulators it names or starts",
  "functions/src/cli/doctor.ts": "CLI: --project and --slack-channel defaults, the Slack bot token",
  "functions/src/cli/eval.ts": "CLI: points this process at the emulators it started",
  "functions/src/cli/investigate.ts": "CLI: composes the local stack's config",
  "functions/src/cli/memories.ts": "CLI: composes the memories backend",
  "functions/src/cli/progress.ts": "CLI: NO_COLOR",
  "functions/src/cli/queue.ts": "CLI: composes the queue backend",
  "functions/src/cli/project.ts": "CLI: metadata-server detection for the emulators",
  "functions/src/cli/report.ts": "CLI: composes the report backend",
  "functions/src/cli/sweep.ts": "CLI: composes the sweep backend",
  "functions/src/eval/run-eval.ts": "hands the environment to the local stack it starts",
  // Child processes (emulators, function servers) inherit this process's environment.
  "functions/src/local/emulators.ts": "starts the emulators",
  "functions/src/local/stack.ts": "starts the function servers",
};

const READ = /\bprocess\s*(?:\.\s*env\b|\[\s*["'`]env["'`]\s*\])|\{[^}]*\benv\b[^}]*\}\s*=\s*process\b/;

/** Lines of a TypeScript source that read the process environment, comments aside. */
export function processEnvReads(source: string): number[] {
  return source.split("\n").flatMap((line, i) => {
    const code = line.replace(/\/\/.*$/, "").trim();
    if (code.startsWith("*") || code.startsWith("/*")) return [];
    return READ.test(code) ? [i + 1] : [];
  });
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("process.env is read only by the config and the composition roots", () => {
  it("the scanner sees every way of reading it, and not comments", () => {
    assert.deepEqual(
      processEnvReads(
        [
          "const a = process.env.X;",
          'const b = process["env"];',
          "const { env } = process;",
          "// process.env in a comment",
          " * process.env in a doc comment",
          "const c = options.env;",
        ].join("\n"),
      ),
      [1, 2, 3],
    );
  });

  it("no file outside the allowed list reads it", (t) => {
    const root = fromRoot("functions/src");
    const offenders: string[] = [];
    let reads = 0;
    for (const file of sources(root)) {
      const name = relative(fromRoot(), file);
      const lines = processEnvReads(readFileSync(file, "utf8"));
      if (ALLOWED[name] === undefined) {
        reads += lines.length;
        offenders.push(...lines.map((line) => `${name}:${line}`));
      }
    }
    t.diagnostic(`figure process.env reads outside the config and composition roots: ${reads}`);
    assert.deepEqual(
      offenders,
      [],
      "read these through the config (config/config.ts, config/environment.ts)",
    );
  });

  it("every allowed file still reads it (a stale entry would hide a new read)", () => {
    for (const name of Object.keys(ALLOWED)) {
      const lines = processEnvReads(readFileSync(fromRoot(name), "utf8"));
      assert.ok(lines.length > 0, `${name} no longer reads process.env: drop it from the list`);
    }
  });
});
