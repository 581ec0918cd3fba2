import type { JsonObject } from "../../domain/json.js";
import type { ToolCallRequest, ToolDeclaration } from "../../model/port.js";
import { describeIntent } from "../describe.js";
import type { Intent } from "../intents.js";
import { isIpv4 } from "../net.js";
import { type SqlQuery, sqlFor } from "../sql.js";
import { encodeIntent } from "../step-text.js";
import { toolForIntent } from "../tool-choice.js";
import { isLogAnalystTool, logToolShape, propertiesOf, requiredOf } from "./declarations.js";
import { runbookCalls } from "./runbooks.js";

const MAX_INDICATORS = 20;

/** Tags a call id so the follow-up round and the report know what a call was for. */
export type CallTag = "main" | "wide" | "alt" | "probe" | "tables";

export function callId(stepId: string, round: number, index: number, tag: CallTag): string {
  return `${stepId}-r${round}-${index}-${tag}`;
}

export function tagOf(id: string): CallTag {
  const tag = id.slice(id.lastIndexOf("-") + 1);
  return tag === "wide" || tag === "alt" || tag === "probe" || tag === "tables" ? tag : "main";
}

export function indicatorsOf(intent: Intent): { type: "ip" | "domain" | "hash"; value: string }[] {
  const p = intent.params;
  return [
    ...(p.ips ?? []).filter(isIpv4).map((value) => ({ type: "ip" as const, value })),
    ...(p.domains ?? []).map((value) => ({ type: "domain" as const, value })),
    ...(p.hashes ?? []).map((value) => ({ type: "hash" as const, value })),
  ].slice(0, MAX_INDICATORS);
}

export interface PlannedCall {
  name: string;
  args: JsonObject;
  tag: CallTag;
}

function intelCalls(tool: string, declaration: ToolDeclaration | undefined, intent: Intent): PlannedCall[] {
  const indicators = indicatorsOf(intent);
  if (indicators.length === 0) return [];
  const props = propertiesOf(declaration?.parameters);
  // A provider that takes one indicator per call gets one call each.
  if (!props.has("indicators") && (props.has("indicator") || props.has("value"))) {
    return indicators.slice(0, 8).map((i): PlannedCall => {
      const args: JsonObject = props.has("indicator")
        ? { indicator: { type: i.type, value: i.value } }
        : { type: i.type, value: i.value };
      return { name: tool, args, tag: "main" };
    });
  }
  return [{ name: tool, args: { indicators }, tag: "main" }];
}

export function sqlCalls(
  tool: string,
  queries: readonly SqlQuery[],
  tag: CallTag,
  key = "sql",
): PlannedCall[] {
  return queries.map((q) => ({ name: tool, args: { [key]: q.sql }, tag }));
}

/** For a tool the playbooks do not know: fill its required string fields with the step's own words. */
function genericCall(declaration: ToolDeclaration, text: string, intent: Intent): PlannedCall {
  const props = propertiesOf(declaration.parameters);
  const args: JsonObject = {};
  const required = requiredOf(declaration.parameters);
  const names = required.length > 0 ? required : [...props.keys()].slice(0, 1);
  for (const name of names) {
    const type = props.get(name)?.type;
    if (type === "array") args[name] = indicatorsOf(intent).map((i) => i.value);
    else if (type === "number" || type === "integer") args[name] = 50;
    else if (type === "boolean") args[name] = false;
    else args[name] = text;
  }
  return { name: declaration.name, args, tag: "main" };
}

/** Aggregated runbook rows are few but precious: ask for the largest page the tool allows. */
export function withPageSize(declaration: ToolDeclaration | undefined, args: JsonObject): JsonObject {
  const prop = propertiesOf(declaration?.parameters).get("pageSize");
  if (!prop) return args;
  const max = typeof prop.maximum === "number" ? prop.maximum : 100;
  return { ...args, pageSize: Math.min(max, 100) };
}

const MAX_REQUEST_CHARS = 2_000;
const MAX_WINDOW_MS = 31 * 86_400_000;

/**
 * The question for a log-analysis sub-agent: the step's own sentence with the runbook it
 * intends and the plan tail, so the offline analyst decodes exactly this intent and an LLM
 * analyst reads a plain question with exact values. The window travels separately (clamped
 * to the longest one the tool takes, keeping its end).
 */
function logAnalystCall(declaration: ToolDeclaration, intent: Intent): PlannedCall {
  const full = describeIntent(intent);
  const request =
    full.length <= MAX_REQUEST_CHARS
      ? full
      : encodeIntent({
          kind: intent.kind,
          params: Object.fromEntries(Object.entries(intent.params).map(([k, v]) => [k, v.slice(0, 5)])),
        }).slice(0, MAX_REQUEST_CHARS);
  const args: JsonObject = { request };
  const start = intent.params.start?.[0];
  const end = intent.params.end?.[0];
  if (propertiesOf(declaration.parameters).has("timeWindow") && start && end) {
    const from = Math.max(Date.parse(start), Date.parse(end) - MAX_WINDOW_MS);
    if (Number.isFinite(from) && from <= Date.parse(end))
      args.timeWindow = { start: new Date(from).toISOString().replace(/\.\d{3}Z$/, "Z"), end };
  }
  return { name: declaration.name, args, tag: "main" };
}

/**
 * The first round of calls for an intent, with the tools this step may use. Runbooks are
 * preferred when the log tool advertises one that fits; otherwise the intent's own SQL.
 */
export function callsForIntent(
  intent: Intent,
  stepTools: readonly string[],
  declarations: readonly ToolDeclaration[],
  stepText: string,
): PlannedCall[] {
  const tool = toolForIntent(intent.kind, stepTools);
  if (!tool) return [];
  const declaration = declarations.find((d) => d.name === tool);
  if (intent.kind === "intel") return intelCalls(tool, declaration, intent);
  if (!declaration) return tool === "log_query" ? sqlCalls(tool, sqlFor(intent), "main") : [];
  if (isLogAnalystTool(declaration)) return [logAnalystCall(declaration, intent)];
  const shape = logToolShape(declaration);
  const viaRunbook = runbookCalls(shape, intent);
  const paged = (calls: PlannedCall[]) =>
    calls.map((c) => ({ ...c, args: withPageSize(declaration, c.args) }));
  if (viaRunbook.length > 0) return paged(viaRunbook.map((args) => ({ name: tool, args, tag: "main" })));
  if (shape.sql) {
    const key = propertiesOf(declaration.parameters).has("sql") ? "sql" : "query";
    return paged(sqlCalls(tool, sqlFor(intent), "main", key));
  }
  return [genericCall(declaration, stepText, intent)];
}

export function toRequests(
  stepId: string,
  round: number,
  planned: readonly PlannedCall[],
): ToolCallRequest[] {
  return planned.map((p, i) => ({ id: callId(stepId, round, i, p.tag), name: p.name, args: p.args }));
}
