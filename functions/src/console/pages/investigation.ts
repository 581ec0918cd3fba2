import { type Conclusion, VerdictSchema } from "../../domain/conclusion.js";
import { NotFoundError } from "../../domain/errors.js";
import type { Investigation } from "../../domain/investigation.js";
import type { Reflection } from "../../domain/reflection.js";
import type { StepResult, ToolCall, Usage } from "../../domain/results.js";
import { brainOf, brainText } from "../../model/brain.js";
import { sccFindingUrl } from "../../notify/scc-link.js";
import { rootTsOf } from "../../notify/thread-root.js";
import { investigationTraceIds } from "../../platform/tracing.js";
import { analystVerdictOf, InvestigationIdSchema } from "../filters.js";
import { planGraph } from "../plan-graph.js";
import type { ConsoleDeps } from "../ports.js";
import { principalOf } from "../search.js";
import { traceView } from "../trace-view.js";
import { stepCallNote, usageBreakdown } from "../usage-breakdown.js";

/** Tool arguments and results are shown whole up to this many characters each. */
const MAX_JSON_CHARS = 20_000;

/** One investigation, everything the store holds about it, shaped for the template. */
export async function investigationPage(
  deps: Pick<ConsoleDeps, "store" | "config" | "traces" | "logger">,
  id: string,
): Promise<Record<string, unknown>> {
  if (!InvestigationIdSchema.safeParse(id).success)
    throw new NotFoundError(`no investigation ${id.slice(0, 80)}`);
  const inv = await deps.store.get(id);
  if (!inv) throw new NotFoundError(`investigation ${id} not found`);
  const [results, reflections, events, rootTs, trace] = await Promise.all([
    deps.store.listStepResults(id),
    deps.store.listReflections(id),
    deps.store.listEvents(id),
    rootTsOf(deps.store, id),
    traceView(deps, investigationTraceIds(id), new Set((inv.plan?.steps ?? []).map((s) => s.id))),
  ]);
  const resultOf = new Map(results.map((r) => [r.stepId, r]));
  const brain = brainOf(inv);
  // In the plan's order, like the step cards; a result whose step left the plan still counts.
  const order = new Map((inv.plan?.steps ?? []).map((s, i) => [s.id, i]));
  const inPlanOrder = [...results].sort(
    (a, b) => (order.get(a.stepId) ?? order.size) - (order.get(b.stepId) ?? order.size),
  );
  const breakdown = usageBreakdown(inv.counters.usage, inPlanOrder, reflections, {
    compressed: events.some((e) => e.type === "compressed"),
  });
  return {
    title: `${inv.finding.category} · ${inv.id}`,
    nav: "investigations",
    inv: {
      id: inv.id,
      status: inv.status,
      category: inv.finding.category,
      reason: inv.reason ?? "",
      model: inv.model,
      brain: brainText(brain),
      offline: brain.kind === "offline",
      fellBackToOffline: inv.fellBackToOffline,
      createdAt: inv.createdAt,
      updatedAt: inv.updatedAt,
      previousInvestigationId: inv.previousInvestigationId ?? "",
      relatedCount: inv.relatedCount ?? 0,
      analystVerdict: analystVerdictOf(inv),
    },
    finding: findingFields(inv),
    findingSeverity: inv.finding.severity,
    findingJson: clipJson(inv.finding),
    iocValues: inv.iocValues,
    plan: inv.plan
      ? {
          objective: inv.plan.objective,
          successCriteria: inv.plan.successCriteria,
          constraints: inv.plan.constraints,
          revision: inv.plan.revision,
          graph: planGraph(inv.plan),
          steps: inv.plan.steps.map((step) => ({
            id: step.id,
            description: step.description,
            status: step.status,
            tools: step.tools,
            dependsOn: step.dependsOn,
            expected: step.expected,
            cancelReason: step.cancelReason ?? "",
            addedInRevision: step.addedInRevision,
            result: stepResult(resultOf.get(step.id)),
          })),
        }
      : null,
    reflections: reflections.map(reflection),
    conclusion: inv.conclusion ? conclusionView(inv.conclusion) : null,
    decisions: (inv.analystDecisions ?? []).map((d) => ({
      kind: d.kind,
      by: d.by.name ?? d.by.id,
      verdict: d.verdict ?? "",
      ferretVerdict: d.ferretVerdict ?? "",
      reason: d.reason ?? "",
      at: d.at,
    })),
    events: events.map((e) => ({
      seq: e.seq,
      at: e.at,
      type: e.type,
      message: e.message,
      stepId: e.stepId ?? "",
    })),
    usage: usageRow(inv.counters.usage),
    breakdown,
    trace,
    counters: {
      stepsExecuted: inv.counters.stepsExecuted,
      waves: inv.counters.waves,
      revisions: inv.counters.revisions,
      bytesScanned: inv.counters.bytesScanned ?? 0,
    },
    links: {
      scc: sccFindingUrl(inv.finding.name)?.toString() ?? "",
      slack: slackPermalink(deps.config.slack.channel, rootTs),
      // A thread posted where no channel id is configured (the demo's local Slack stand-in)
      // still exists: say so rather than "no Slack thread".
      slackTs: rootTs !== undefined && /^\d{1,12}\.\d{6}$/.test(rootTs) ? rootTs : "",
    },
    verdicts: VerdictSchema.options,
  };
}

function conclusionView(c: Conclusion) {
  return {
    verdict: c.verdict,
    confidencePct: Math.round(c.confidence * 100),
    severity: c.severity,
    severityReason: c.severityReason ?? "",
    why: c.why ?? "",
    summary: c.summary,
    keyFindings: c.keyFindings.map((k) => ({
      finding: k.finding,
      evidence: k.evidence.map((e) => ({ source: e.source, detail: e.detail, stepId: e.stepId ?? "" })),
    })),
    iocs: c.iocs.map((i) => ({ type: i.type, value: i.value, context: i.context ?? "" })),
    mitre: c.mitre.map((t) => ({
      tactic: t.tactic,
      techniqueId: t.techniqueId,
      techniqueName: t.techniqueName ?? "",
    })),
    recommendedActions: c.recommendedActions,
    openQuestions: c.openQuestions,
    producedBy: { model: c.producedBy.model, offline: c.producedBy.offline, note: c.producedBy.note ?? "" },
  };
}

function findingFields(inv: Investigation): { label: string; value: string }[] {
  const f = inv.finding;
  const fields: [string, string | undefined][] = [
    ["Name", f.name],
    ["Category", f.category],
    ["Severity", f.severity],
    ["Class", f.findingClass],
    ["State", f.state],
    ["Mute", f.mute],
    ["Event time", f.eventTime],
    ["Description", f.description],
    ["Resource", f.resource.name],
    ["Resource type", f.resource.type],
    ["Project", f.resource.projectDisplayName ?? f.resource.project],
    ["Principal", principalOf(f)],
    ["Caller IP", f.access?.callerIp],
    ["User agent", f.access?.userAgent],
    ["Service", f.access?.serviceName],
    ["External URI", f.externalUri],
    ["Next steps", f.nextSteps],
  ];
  return fields
    .filter((e): e is [string, string] => Boolean(e[1]))
    .map(([label, value]) => ({ label, value }));
}

function stepResult(r: StepResult | undefined) {
  if (!r) return null;
  return {
    status: r.status,
    outcome: r.outcome,
    summary: r.summary,
    facts: r.facts,
    iocs: r.iocs.map((i) => ({ type: i.type, value: i.value })),
    error: r.error ?? "",
    model: r.model,
    iterations: r.iterations,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    usage: usageRow(r.usage),
    callNote: stepCallNote(r.model, r.usage),
    toolCalls: r.toolCalls.map(toolCall),
  };
}

function toolCall(c: ToolCall) {
  return {
    name: c.name,
    ok: c.ok,
    summary: c.summary,
    error: c.error ?? "",
    durationMs: Math.round(c.durationMs),
    sql: sqlOf(c.args) ?? "",
    queries: queriesOf(c.data),
    args: clipJson(c.args),
    data: c.data === undefined ? "" : clipJson(c.data),
    verdicts: c.verdicts && c.verdicts.length > 0 ? clipJson(c.verdicts) : "",
  };
}

/** The SQL a call ran itself (log_query's `sql`). */
function sqlOf(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  return typeof value.sql === "string" ? value.sql : undefined;
}

/** Rows shown per query; the full result stays in the call's JSON below it. */
const MAX_ROWS_SHOWN = 50;

/**
 * The queries behind a call, each with its SQL and rows: a log_query result is one (its
 * `executedSql`, `columns`, `rows`), a log_analysis answer lists the sub-agent's
 * (log-analyst/answer.ts: a runbook or SQL, row count, a few sample rows).
 */
function queriesOf(data: unknown) {
  if (!isRecord(data)) return [];
  const records = Array.isArray(data.queries)
    ? data.queries.filter(isRecord)
    : "executedSql" in data || Array.isArray(data.rows)
      ? [data]
      : [];
  return records.map((q) => {
    const rows = Array.isArray(q.rows) ? q.rows.filter(isRecord) : [];
    const columns = Array.isArray(q.columns)
      ? q.columns.filter((c): c is string => typeof c === "string")
      : [...new Set(rows.flatMap((r) => Object.keys(r)))];
    return {
      what: typeof q.runbook === "string" ? `runbook ${q.runbook}` : String(q.tool ?? "query"),
      sql: typeof q.sql === "string" ? q.sql : typeof q.executedSql === "string" ? q.executedSql : "",
      params: isRecord(q.params) ? clipJson(q.params) : "",
      ok: q.ok !== false,
      totalRows: typeof q.totalRows === "number" ? q.totalRows : rows.length,
      columns,
      rows: rows.slice(0, MAX_ROWS_SHOWN).map((r) => columns.map((c) => cellText(r[c]))),
    };
  });
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function reflection(r: Reflection) {
  return {
    wave: r.wave,
    afterSteps: r.afterSteps,
    achieved: r.achieved,
    rationale: r.rationale,
    insights: r.insights,
    skipped: r.skipped,
    applied: r.applied.length > 0 ? clipJson(r.applied) : "",
    refused: r.refused.map((x) => ({ update: clipJson(x.update), reason: x.reason })),
  };
}

function usageRow(u: Usage) {
  return {
    llmCalls: u.llmCalls,
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    thinkingTokens: u.thinkingTokens ?? 0,
    cost: u.costUsd === undefined ? "" : `$${u.costUsd.toFixed(4)}`,
  };
}

function clipJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? "null";
  return text.length <= MAX_JSON_CHARS
    ? text
    : `${text.slice(0, MAX_JSON_CHARS)}\n… (${text.length - MAX_JSON_CHARS} more characters)`;
}

/**
 * Slack's permalink form for a message (https://slack.com/archives/CHANNEL/pTS), built only
 * from a channel id and a message ts of the documented shapes, never from free text.
 */
export function slackPermalink(channel: string | undefined, ts: string | undefined): string {
  if (!channel || !ts || !/^[CGD][A-Z0-9]{2,}$/.test(channel) || !/^\d{1,12}\.\d{6}$/.test(ts)) return "";
  return `https://slack.com/archives/${channel}/p${ts.replace(".", "")}`;
}
