import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadConfig } from "../../../functions/src/config/config.js";
import { ConfigError } from "../../../functions/src/domain/errors.js";
import { buildToolRegistry } from "../../../functions/src/entry/tool-registry.js";
import { createLogger } from "../../../functions/src/platform/logger.js";

const dir = mkdtempSync(join(tmpdir(), "ferret-lazy-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const logs = join(dir, "logs");
const bundle = join(dir, "bundle.json");
const quiet = createLogger({ sink: { write: () => {} } });
const warnings: string[] = [];
const recording = createLogger({ sink: { write: (line: string) => warnings.push(line) } });

describe("heavy dependencies are opened on first use (issue 16)", () => {
  it("a malformed log line is skipped when the warehouse opens and an unreadable STIX bundle fails its lookup, neither at start-up", async () => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(logs);
    writeFileSync(
      join(logs, "syslog.jsonl"),
      '{"timestamp":"2026-01-01T00:00:00Z","textPayload":"ok"}\n{"timestamp": oops\n',
    );
    writeFileSync(join(logs, "app_custom.jsonl"), '{"x":1}\n');
    writeFileSync(bundle, "{ not json");
    const env = { FERRET_DUCKDB_DIR: logs, FERRET_STIX_BUNDLE: bundle, FERRET_MODEL_PROVIDER: "offline" };
    const config = loadConfig({ env });
    // Before: this threw the DuckDB load error (or the STIX ConfigError) and the process served nothing.
    const built = await buildToolRegistry(config, env, recording);
    assert.ok(built.tables.some((t) => t.name === "syslog"));
    assert.ok(
      built.tables.some((t) => t.name === "app_custom"),
      "files outside the log schema are listed too",
    );
    assert.ok(built.registry.names().includes("log_query"));
    assert.ok(built.registry.names().includes("threat_intel_lookup"));

    // The bad line is skipped and reported when the warehouse opens; the good row is served.
    const result = await built.warehouse!.query({ sql: "SELECT textPayload FROM syslog" });
    assert.deepEqual(
      result.rows.map((r) => r.textPayload),
      ["ok"],
    );
    assert.ok(
      warnings.some((w) => /syslog\.jsonl:2: not valid JSON/.test(w)),
      warnings.join("\n"),
    );
    const ctx = { investigationId: "inv-lazy", finding: {}, logger: quiet } as unknown as Parameters<
      typeof built.registry.run
    >[2];
    const intel = await built.registry.run(
      "threat_intel_lookup",
      { indicators: [{ type: "ip", value: "203.0.113.7" }] },
      ctx,
    );
    assert.equal(intel.ok, false);
    assert.match(intel.summary, /cannot read STIX bundle/);
    await built.warehouse?.close();
  });

  it("a missing log directory is still a configuration error at start-up", async () => {
    const env = { FERRET_DUCKDB_DIR: join(dir, "nope"), FERRET_MODEL_PROVIDER: "offline" };
    await assert.rejects(buildToolRegistry(loadConfig({ env }), env, quiet), ConfigError);
  });
});
