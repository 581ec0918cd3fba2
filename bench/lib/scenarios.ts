import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadScenario, type ScenarioInput } from "../../functions/src/cli/scenario.js";
import { normalizeNotification, parseNotification } from "../../functions/src/domain/finding/finding.js";
import { investigationIdFor } from "../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../functions/src/domain/json.js";
import { fromRoot } from "../../functions/src/platform/paths.js";
import type { DecisiveProbe } from "./decisive.js";

/** A scenario directory with what the benchmark needs from it. */
export interface BenchScenario {
  name: string;
  input: ScenarioInput;
  logsDir: string;
  stixBundle: string;
  notification: JsonObject;
  /** Verdicts that count as right (expected.json's acceptableVerdicts, first = verdict). */
  acceptable: string[];
  /** The runbook calls that surface the evidence deciding the scenario (expected.json's probes, traps left out). */
  probes: DecisiveProbe[];
}

/** Every complete scenario of the set (logs, intel and expected.json), by name. */
export function listScenarios(
  only?: readonly string[],
  set: "public" | "held-back" = "public",
): BenchScenario[] {
  const root = fromRoot(set === "public" ? "examples/scenarios" : "examples/held-back");
  const names = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .filter((name) => !only || only.length === 0 || only.includes(name))
    .sort();
  const scenarios: BenchScenario[] = [];
  for (const name of names) {
    const input = loadScenario(join(root, name));
    if (!input.logsDir || !input.stixBundle || !input.expectedPath) continue;
    const expected = JSON.parse(readFileSync(input.expectedPath, "utf8")) as {
      verdict: string;
      acceptableVerdicts?: string[];
      probes?: (DecisiveProbe & { trap?: true; rows?: "some" | "none" })[];
    };
    scenarios.push({
      name,
      input,
      logsDir: input.logsDir,
      stixBundle: input.stixBundle,
      notification: input.notification as JsonObject,
      acceptable: expected.acceptableVerdicts?.length ? expected.acceptableVerdicts : [expected.verdict],
      // A wrong-identifier trap shows what a plan must not ask; it is never evidence to ask for.
      probes: (expected.probes ?? [])
        .filter((p) => p.trap !== true)
        .map(({ runbook, params, expect, rows }) => ({
          runbook,
          params,
          expect: rows === "none" ? [] : (expect ?? []),
        })),
    });
  }
  return scenarios;
}

/** The scenario's notification with a suffix on the finding name: a new finding, same evidence. */
export function variant(notification: JsonObject, suffix: string): { notification: JsonObject; id: string } {
  const copy = structuredClone(notification) as JsonObject & { finding: { name: string } };
  copy.finding.name = `${copy.finding.name}${suffix}`;
  const finding = normalizeNotification(parseNotification(copy));
  return { notification: copy, id: investigationIdFor(finding.name, finding.eventTime) };
}
