import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { metrics } from "@opentelemetry/api";
import {
  AggregationTemporality,
  DataPointType,
  type Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { planningMeterName, recordIfEnded } from "../../../functions/src/app/investigation-meters.js";
import { type PlanningMetricName, planningMetrics } from "../../../functions/src/app/planning-metrics.js";
import type { Investigation, InvestigationEvent } from "../../../functions/src/domain/investigation.js";
import type { StepStatus } from "../../../functions/src/domain/plan.js";
import { traced } from "../../../functions/src/model/traced.js";
import { inInvestigationSpan } from "../../../functions/src/platform/tracing.js";
import { someBrief } from "../../helpers/briefs.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";
import * as fx from "../notify/fixtures.js";

// The global meter provider, as the deployed telemetry registers it, read in memory (one per
// test process: node:test runs each file in its own).
const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));

async function histograms(): Promise<
  Map<string, { sum: number; count: number; attributes: Record<string, unknown> }[]>
> {
  exporter.reset();
  await reader.forceFlush();
  const out = new Map<string, { sum: number; count: number; attributes: Record<string, unknown> }[]>();
  for (const rm of exporter.getMetrics())
    for (const sm of rm.scopeMetrics)
      for (const m of sm.metrics) {
        if (m.dataPointType !== DataPointType.HISTOGRAM) continue;
        out.set(
          m.descriptor.name,
          m.dataPoints.map((p) => {
            const h = p.value as Histogram;
            return { sum: h.sum ?? Number.NaN, count: h.count, attributes: p.attributes };
          }),
        );
      }
  return out;
}

function ended(
  n: number,
  revision: number,
  statuses: readonly StepStatus[],
  verdict: boolean,
): Investigation {
  const base = fx.plan();
  const template = base.steps[0];
  if (!template) throw new Error("fixture plan has no step");
  return fx.investigation({
    id: `inv-${String(n).padStart(24, "0")}`,
    status: verdict ? "concluded" : "failed",
    createdAt: "2026-12-01T10:00:00.000Z",
    updatedAt: "2026-12-01T10:04:00.000Z",
    plan: { ...base, revision, steps: statuses.map((status, i) => ({ ...template, id: `s${i}`, status })) },
    ...(verdict ? { conclusion: fx.conclusion() } : { conclusion: undefined }),
  });
}

const endingEvent = (inv: Investigation): InvestigationEvent =>
  ({
    investigationId: inv.id,
    seq: 9,
    type: inv.status,
    message: "ended",
    at: inv.updatedAt,
  }) as InvestigationEvent;

describe("a finished investigation as Cloud Monitoring metrics", () => {
  it("each planning metric's histogram has the mean `ferret report` computes, once per ending", async () => {
    const finished = [
      ended(1, 0, ["done", "done"], true),
      ended(2, 2, ["done", "failed", "done"], true),
      ended(3, 1, ["failed", "cancelled"], false),
    ];
    for (const inv of finished) recordIfEnded({ investigation: inv, events: [endingEvent(inv)] });
    // A replay of the last one: already ended, nothing appended.
    recordIfEnded({ investigation: finished[2] as Investigation, events: [] });
    const recorded = await histograms();
    for (const m of planningMetrics(finished)) {
      const name = planningMeterName(m.name.replace(" (mean)", "") as PlanningMetricName);
      const [point] = recorded.get(name) ?? [];
      assert.ok(point, `${name} recorded`);
      assert.equal(point.count, m.over, `${name} over as many as the report`);
      assert.equal(point.sum / point.count, m.value, `${name}'s mean is the report's figure`);
    }
    const durations = recorded.get("ferret.investigation.duration") ?? [];
    assert.deepEqual(
      durations.map((d) => [d.attributes, d.sum / d.count]).sort(),
      [
        [{ "ferret.status": "concluded" }, 240],
        [{ "ferret.status": "failed" }, 240],
      ].sort(),
    );
  });

  it("a commit that does not end the investigation records nothing", async () => {
    const before = (await histograms()).get(planningMeterName("completion"))?.[0]?.count;
    const running = { ...ended(4, 0, ["done"], true), status: "running" as const };
    recordIfEnded({
      investigation: running,
      events: [{ ...endingEvent(running), type: "step_finished" } as InvestigationEvent],
    });
    assert.equal((await histograms()).get(planningMeterName("completion"))?.[0]?.count, before);
  });

  it("model calls and their tokens by role, and each phase's time", async () => {
    const model = traced(
      new ScriptedModel([{ text: "ok", usage: { inputTokens: 120, outputTokens: 30 } }], {
        name: "gemini-x",
      }),
    );
    await inInvestigationSpan("inv-m", "reflection.evaluate_action", {}, () =>
      model.generate({ brief: someBrief("reflector"), system: "s", messages: [{ role: "user", text: "u" }] }),
    );
    const recorded = await histograms();
    const calls = recorded.get("gen_ai.client.operation.duration") ?? [];
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.count, 1, "one model call");
    assert.equal(calls[0]?.attributes["ferret.role"], "reflector");
    const tokens = (recorded.get("gen_ai.client.token.usage") ?? []).map((t) => [
      t.attributes["gen_ai.token.type"],
      t.sum,
    ]);
    assert.deepEqual(tokens.sort(), [
      ["input", 120],
      ["output", 30],
    ]);
    const phases = recorded.get("ferret.phase.duration") ?? [];
    assert.deepEqual(
      phases.map((p) => p.attributes),
      [{ "ferret.phase": "reflection", "ferret.ok": true }],
    );
  });

  it("the offline model records its calls and no tokens", async () => {
    const offline = traced(new ScriptedModel(["ok"], { name: "offline-playbook", offline: true }));
    await offline.generate({
      brief: someBrief("planner"),
      system: "s",
      messages: [{ role: "user", text: "u" }],
    });
    const recorded = await histograms();
    const roles = (recorded.get("gen_ai.client.operation.duration") ?? []).map(
      (c) => c.attributes["ferret.role"],
    );
    assert.ok(roles.includes("planner"));
    const tokenRoles = (recorded.get("gen_ai.client.token.usage") ?? []).map(
      (c) => c.attributes["ferret.role"],
    );
    assert.ok(!tokenRoles.includes("planner"), "no token figure for the offline model");
  });
});
