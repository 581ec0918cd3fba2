import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { openDuckDbWarehouse } from "../../../functions/src/adapters/duckdb/warehouse.js";
import {
  findingIocs,
  normalizeNotification,
  parseNotification,
} from "../../../functions/src/domain/finding/finding.js";
import { loadRunbooks, renderRunbook } from "../../../functions/src/sql/runbooks.js";
import { generateScenarios } from "../../../scripts/generate-scenarios.js";
import { ExpectedSchema } from "../../../scripts/scenarios/expected.js";
import { HELD_BACK, SCENARIOS } from "../../../scripts/scenarios/index.js";
import type { ScenarioDefinition } from "../../../scripts/scenarios/scenario.js";

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full) : [full];
  });
}

const SETS: ReadonlyArray<{ dir: string; scenarios: readonly ScenarioDefinition[] }> = [
  { dir: "examples/scenarios", scenarios: SCENARIOS },
  { dir: "examples/held-back", scenarios: HELD_BACK },
];

for (const set of SETS)
  describe(`scenario generator (${set.dir})`, () => {
    it("is deterministic: two runs give byte-identical files, equal to the committed examples", () => {
      const a = mkdtempSync(join(tmpdir(), "ferret-scenarios-a-"));
      const b = mkdtempSync(join(tmpdir(), "ferret-scenarios-b-"));
      try {
        generateScenarios(a, undefined, set.scenarios);
        generateScenarios(b, undefined, set.scenarios);
        const filesA = listFiles(a)
          .map((f) => relative(a, f))
          .sort();
        const filesB = listFiles(b)
          .map((f) => relative(b, f))
          .sort();
        assert.deepEqual(filesA, filesB);
        assert.ok(filesA.length >= set.scenarios.length * 9);
        for (const file of filesA) {
          const bytes = readFileSync(join(a, file));
          assert.ok(bytes.equals(readFileSync(join(b, file))), `${file} differs between runs`);
          assert.ok(
            bytes.equals(readFileSync(join(set.dir, file))),
            `${file} differs from the committed example; regenerate`,
          );
        }
      } finally {
        rmSync(a, { recursive: true, force: true });
        rmSync(b, { recursive: true, force: true });
      }
    });
  });

const runbooks = loadRunbooks();

for (const { dir: setDir, scenarios } of SETS)
  for (const scenario of scenarios) {
    describe(`scenario ${scenario.name}`, () => {
      const dir = join(setDir, scenario.name);
      const expected = ExpectedSchema.parse(JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")));
      const notification = parseNotification(
        JSON.parse(readFileSync(join(dir, "notification.json"), "utf8")),
      );
      const finding = normalizeNotification(notification);
      const logs = readdirSync(join(dir, "logs"))
        .map((f) => readFileSync(join(dir, "logs", f), "utf8"))
        .join("");

      it("has a notification that normalizes to the expected category, with its time anchor", () => {
        assert.equal(finding.category, expected.category);
        assert.equal(finding.truncated.length, 0);
        assert.ok(Date.parse(finding.eventTime) > 0);
      });

      it("lists its own verdict first among the acceptable ones", () => {
        assert.equal(expected.acceptableVerdicts[0], expected.verdict);
      });

      it("keeps the logs to a few MB of valid JSON lines", () => {
        assert.ok(Buffer.byteLength(logs) < 5_000_000, `${Buffer.byteLength(logs)} bytes`);
        const lines = logs.split("\n").filter(Boolean);
        assert.ok(lines.length > 2_000, `${lines.length} rows of logs`);
        for (const line of lines.slice(0, 200)) assert.equal(typeof JSON.parse(line).timestamp, "string");
      });

      it("puts every required IOC and evidence string in the logs, the finding or the intel", () => {
        const findingText =
          JSON.stringify(notification) + readFileSync(join(dir, "intel/bundle.json"), "utf8");
        for (const ioc of expected.requiredIocs) {
          assert.ok(
            logs.includes(ioc.value) || findingText.includes(ioc.value),
            `${ioc.value} is nowhere to be found`,
          );
        }
        for (const evidence of expected.requiredEvidence) {
          assert.ok(
            evidence.anyOf.some((s) => logs.includes(s) || findingText.includes(s)),
            evidence.id,
          );
        }
        const startingPoints = findingIocs(finding).length + (finding.resource.displayName ? 1 : 0);
        assert.ok(startingPoints > 0, "the finding gives the investigation something to start from");
      });

      it("surfaces its evidence through the runbooks, from the finding's own facts", async () => {
        const warehouse = await openDuckDbWarehouse({ dir: join(dir, "logs"), maxRows: 5_000 });
        try {
          for (const probe of expected.probes) {
            const anchor = Date.parse(finding.eventTime);
            const window = {
              start: new Date(anchor - probe.window.hoursBefore * 3_600_000).toISOString(),
              end: new Date(anchor + probe.window.hoursAfter * 3_600_000).toISOString(),
            };
            const request = renderRunbook(
              runbooks.get(probe.runbook),
              { ...probe.params, ...window },
              { pageSize: 500 },
            );
            const rows: unknown[] = [];
            let token: string | undefined;
            do {
              const page = await warehouse.query({ ...request, ...(token ? { pageToken: token } : {}) });
              rows.push(...page.rows);
              token = page.nextPageToken;
            } while (token);
            const text = JSON.stringify(rows);
            const label = `${probe.runbook}(${JSON.stringify(probe.params)})`;
            assert.equal(rows.length > 0 ? "some" : "none", probe.rows, `${label} rows`);
            for (const needle of probe.expect)
              assert.ok(text.includes(needle), `${label} should show ${needle}`);
            for (const needle of probe.absent)
              assert.ok(!text.includes(needle), `${label} should not show ${needle}`);
          }
        } finally {
          await warehouse.close();
        }
      });

      it("has a STIX bundle", () => {
        const bundle = JSON.parse(readFileSync(join(dir, "intel/bundle.json"), "utf8"));
        assert.equal(bundle.type, "bundle");
        assert.ok(bundle.objects.some((o: { type: string }) => o.type === "indicator"));
      });
    });
  }
