import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fromRoot } from "../../../functions/src/platform/paths.js";

/**
 * `ferret investigate` says within seconds why it cannot investigate, with an exit code,
 * instead of starting the stack and waiting out its timeout (issue 16). None of these
 * cases may start the local stack: each must end long before the 600 s timeout.
 */
const dir = mkdtempSync(join(tmpdir(), "ferret-cli-exit-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const BASE = JSON.parse(
  readFileSync(fromRoot("examples/scenarios/cryptomining/notification.json"), "utf8"),
) as { finding: Record<string, unknown> };

function notificationFile(name: string, edit: (n: typeof BASE) => unknown): string {
  const path = join(dir, `${name}.json`);
  const text = JSON.stringify(edit(structuredClone(BASE)));
  writeFileSync(path, text);
  return path;
}

/** The CLI with a clean environment: no FERRET_* or emulator variables from this process. */
function ferret(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("FERRET_") && !k.endsWith("_EMULATOR_HOST")),
  );
  const started = Date.now();
  const out = spawnSync(
    process.execPath,
    ["--import", "tsx", fromRoot("functions/src/cli/main.ts"), ...args],
    {
      env: { ...clean, ...env },
      encoding: "utf8",
      timeout: 60_000,
      cwd: fromRoot(),
    },
  );
  return { status: out.status, stderr: out.stderr, stdout: out.stdout, ms: Date.now() - started };
}

const scenario = fromRoot("examples/scenarios/cryptomining");

describe("ferret investigate exits at once, with the reason", { timeout: 240_000 }, () => {
  it("an unknown model provider in FERRET_MODEL_PROVIDER (a commander default skipped .choices)", () => {
    const r = ferret(["investigate", scenario], { FERRET_MODEL_PROVIDER: "gemni" });
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /value 'gemni' from env 'FERRET_MODEL_PROVIDER' is invalid\. Allowed choices are auto, gemini, offline/,
    );
    assert.ok(r.ms < 45_000, `${r.ms} ms`);
  });

  it("a configuration value out of range, and a misspelled variable", () => {
    const range = ferret(["investigate", scenario], { FERRET_MAX_STEPS: "0" });
    assert.equal(range.status, 2, range.stderr);
    assert.match(range.stderr, /ferret: invalid configuration: FERRET_MAX_STEPS: /);
    const typo = ferret(["investigate", scenario], { FERRET_TOOLS_DNY: "intel_*" });
    assert.equal(typo.status, 2, typo.stderr);
    assert.match(
      typo.stderr,
      /FERRET_TOOLS_DNY is not a ferret variable \(did you mean FERRET_TOOLS_DENY\?\)/,
    );
    assert.ok(range.ms < 45_000 && typo.ms < 45_000);
  });

  it("a finding nested 10,000 levels deep (was: RangeError, exit 1)", () => {
    // Written as text: JSON.stringify itself overflows on it.
    const file = join(dir, "deep.json");
    const marked = notificationFile("deep-base", (n) => {
      n.finding.sourceProperties = { deep: "@DEEP@" };
      return n;
    });
    const deep = `${"[".repeat(10_000)}1${"]".repeat(10_000)}`;
    writeFileSync(file, readFileSync(marked, "utf8").replace('"@DEEP@"', deep));
    const r = ferret(["investigate", file]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /ferret: the notification is refused: finding\.sourceProperties\.deep\..*nested deeper than 64 levels/,
    );
    assert.doesNotMatch(r.stderr, /RangeError/);
  });

  it("an oversized finding ingest would dead-letter", () => {
    const file = notificationFile("huge", (n) => {
      n.finding.description = "x".repeat(1_100_000);
      return n;
    });
    const r = ferret(["investigate", file]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /the notification is \d+ bytes; ingest accepts at most 1000000 and would dead-letter it/,
    );
  });

  it("an inactive finding or a lowercase state is skipped by the ingest policy: exit 3 with the reason", () => {
    const inactive = ferret([
      "investigate",
      notificationFile("inactive", (n) => ({ ...n, finding: { ...n.finding, state: "INACTIVE" } })),
    ]);
    assert.equal(inactive.status, 3, inactive.stderr);
    assert.match(
      inactive.stderr,
      /ferret: ingest skips this finding: the finding state is INACTIVE, not ACTIVE/,
    );
    const lower = ferret([
      "investigate",
      notificationFile("lower", (n) => ({ ...n, finding: { ...n.finding, state: "active" } })),
    ]);
    assert.equal(lower.status, 3, lower.stderr);
    assert.match(lower.stderr, /the finding state "active" is not an SCC state/);
    assert.ok(inactive.ms < 45_000 && lower.ms < 45_000);
  });

  it("a hostile category cannot put escape sequences into the error output", () => {
    const file = notificationFile("escape", (n) => ({
      ...n,
      finding: { ...n.finding, category: "Evil\u001b]0;pwned\u0007\u001b[2J category" },
    }));
    const r = ferret(["investigate", file], { FERRET_IGNORE_CATEGORIES: "Evil*" });
    assert.equal(r.status, 3, r.stderr);
    assert.match(
      r.stderr,
      /ingest skips this finding: category "Evil category" matches ignore rule "Evil\*"/,
    );
    assert.equal((r.stderr + r.stdout).includes("\u001b"), false);
  });
});
