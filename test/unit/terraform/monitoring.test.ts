// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions, not JS templates.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  INVESTIGATION_DURATION,
  planningMeterName,
} from "../../../functions/src/app/investigation-meters.js";
import { PLANNING_TARGETS, type PlanningMetricName } from "../../../functions/src/app/planning-metrics.js";
import { MODEL_CALLS, MODEL_TOKENS } from "../../../functions/src/model/traced.js";
import { PHASE_DURATION } from "../../../functions/src/platform/tracing.js";
import { allStrings, loadTerraform, local, obj, resource, type Terraform } from "./hcl.js";

/**
 * The dashboard (terraform/monitoring.tf) draws what the functions record, under the names
 * Google's metric exporter gives them, with the design's targets as the code has them.
 */
const tf: Terraform = await loadTerraform();
const PREFIX = "workload.googleapis.com";

test("every planning metric has a tile on its instrument, with the design's target on the side that misses", () => {
  const targets = obj(local(tf, "planning_targets"), "local.planning_targets");
  const names = Object.keys(PLANNING_TARGETS) as PlanningMetricName[];
  assert.deepEqual(
    Object.keys(targets)
      .map((k) => `ferret.planning.${k}`)
      .sort(),
    names.map(planningMeterName).sort(),
  );
  for (const name of names) {
    const key = planningMeterName(name).replace("ferret.planning.", "");
    const row = obj(targets[key], key);
    const target = PLANNING_TARGETS[name];
    assert.equal(row.value, target.value, `${name}'s threshold is the design's target`);
    // A rate that must exceed its target misses below it; one that must stay under misses above.
    assert.equal(row.direction, target.comparison === "<" ? "ABOVE" : "BELOW", name);
  }
  // The tiles are one for-expression over the targets, on each metric's instrument.
  const tiles = String(local(tf, "planning_tiles"));
  assert.ok(tiles.includes("for name, t in local.planning_targets"), tiles);
  assert.ok(tiles.includes('metric.type=\\"${local.metric_prefix}/ferret.planning.${name}\\"'), tiles);
  assert.equal(local(tf, "metric_prefix"), PREFIX);
});

test("the time and model-use tiles read the instruments the code records", () => {
  const text = allStrings(local(tf, "usage_tiles")).join("\n");
  for (const instrument of [PHASE_DURATION.name, INVESTIGATION_DURATION, MODEL_CALLS.name, MODEL_TOKENS.name])
    assert.ok(text.includes(`metric.type="\${local.metric_prefix}/${instrument}"`), instrument);
  // The exporter writes a label per attribute with "." made "_" (its transform.ts normalizeLabelKey).
  for (const label of ["ferret_phase", "ferret_status", "ferret_role", "gen_ai_token_type"])
    assert.ok(text.includes(`metric.label.${label}`), label);
});

test("the dashboard is one resource in the ferret project, after the APIs", () => {
  const dashboard = resource(tf, "google_monitoring_dashboard.ferret");
  assert.equal(dashboard.project, "${var.project_id}");
  assert.ok(String(dashboard.dashboard_json).includes("local.dashboard_tiles"));
});
