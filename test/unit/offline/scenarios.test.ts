import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { z } from "zod";
import { investigate } from "./support/harness.js";
import { openScenario } from "./support/tools.js";

/**
 * A sanity check of the generic rules against the generated scenarios, with the real
 * tools (DuckDB warehouse, runbooks, STIX intel). The test reads examples/; the model never
 * does — it sees only the finding and what its tools return.
 */
const ROOT = "examples/scenarios";

const ExpectedSchema = z.looseObject({
  acceptableVerdicts: z.array(z.string()).min(1),
  requiredIocs: z.array(z.object({ type: z.string(), value: z.string() })).default([]),
  requiredEvidence: z.array(z.object({ id: z.string(), anyOf: z.array(z.string()) })).default([]),
  mitreTechniques: z.array(z.string()).default([]),
});

const scenarios = existsSync(ROOT)
  ? readdirSync(ROOT).filter((name) =>
      ["notification.json", "expected.json", "logs", "intel/bundle.json"].every((f) =>
        existsSync(join(ROOT, name, f)),
      ),
    )
  : [];

describe("offline model on the generated scenarios", () => {
  it("has the six bundled scenarios to check", () => {
    // A missing or renamed scenario must fail here, not quietly shrink the suite.
    assert.ok(scenarios.length >= 6, `found ${scenarios.length} complete scenario(s)`);
  });

  for (const name of scenarios) {
    it(`${name}: verdict, IOCs and evidence match expected.json`, async () => {
      const dir = join(ROOT, name);
      const expected = ExpectedSchema.parse(JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")));
      const { finding, tools } = await openScenario(dir);
      try {
        const { conclusion, results } = await investigate(finding, tools);
        assert.ok(
          expected.acceptableVerdicts.includes(conclusion.verdict),
          `verdict ${conclusion.verdict} not in ${expected.acceptableVerdicts.join(", ")}: ${conclusion.summary}`,
        );
        const iocs = new Set(conclusion.iocs.map((i) => `${i.type}:${i.value.toLowerCase()}`));
        for (const ioc of expected.requiredIocs)
          assert.ok(
            iocs.has(`${ioc.type}:${ioc.value.toLowerCase()}`),
            `conclusion lists ${ioc.type} ${ioc.value}`,
          );
        const told = JSON.stringify([conclusion.keyFindings, conclusion.iocs, conclusion.summary]);
        for (const evidence of expected.requiredEvidence) {
          assert.ok(
            evidence.anyOf.some((v) => told.includes(v)),
            `evidence ${evidence.id} (${evidence.anyOf.join(" | ")}) is in the conclusion`,
          );
        }
        const techniques = conclusion.mitre.map((m) => m.techniqueId);
        if (conclusion.verdict === "true_positive" && expected.mitreTechniques.length > 0) {
          assert.ok(
            expected.mitreTechniques.some((t) => techniques.includes(t)),
            `one of ${expected.mitreTechniques.join(", ")} mapped`,
          );
        }
        assert.ok(
          results.every((r) => r.toolCalls.every((c) => c.ok || c.name === "log_query")),
          "no tool rejected its arguments",
        );
      } finally {
        await tools.close();
      }
    });
  }
});
