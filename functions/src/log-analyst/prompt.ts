import type { Finding } from "../domain/finding.js";
import type { JsonObject } from "../domain/json.js";
import type { LogWarehouse, TableInfo } from "../ports/log-warehouse.js";
import { renderPrompt } from "../prompts/render.js";
import type { RunbookLibrary } from "../sql/runbooks.js";
import type { LogAnalystRequest, RecalledMemory, TimeWindow } from "./contract.js";
import { LOG_ANALYST_TOOLS } from "./tool-names.js";

function firstSentence(text: string): string {
  const end = text.indexOf(". ");
  return end === -1 ? text : text.slice(0, end + 1);
}

export function analystSystemPrompt(args: {
  dialect: LogWarehouse["dialect"];
  tables: readonly Pick<TableInfo, "name" | "description">[];
  runbooks: RunbookLibrary;
  maxIterations: number;
}): string {
  return renderPrompt("log-analyst.system", {
    dialect: args.dialect,
    tables: args.tables.map((t) => ({ name: t.name, description: t.description })),
    runbooks: args.runbooks.list().map((r) => ({
      name: r.name,
      params: r.params.map((p) => p.name).join(", "),
      description: firstSentence(r.description),
    })),
    maxIterations: args.maxIterations,
    tools: LOG_ANALYST_TOOLS,
  });
}

/**
 * What the analyst needs of the finding: what, when, where and the indicators. Free text
 * (description, sourceProperties) stays with the main agent; the analyst gets a question.
 */
export function findingBrief(finding: Finding): JsonObject {
  const brief: JsonObject = {
    category: finding.category,
    eventTime: finding.eventTime,
    resource: {
      name: finding.resource.name,
      ...(finding.resource.displayName ? { displayName: finding.resource.displayName } : {}),
      ...(finding.resource.type ? { type: finding.resource.type } : {}),
      ...(finding.resource.project ? { project: finding.resource.project } : {}),
    },
    indicators: {
      ipAddresses: finding.indicators.ipAddresses,
      domains: finding.indicators.domains,
      hashes: finding.indicators.hashes,
    },
  };
  if (finding.access?.principalEmail || finding.access?.callerIp)
    brief.access = {
      ...(finding.access.principalEmail ? { principalEmail: finding.access.principalEmail } : {}),
      ...(finding.access.callerIp ? { callerIp: finding.access.callerIp } : {}),
    };
  const processes = finding.processes
    .slice(0, 5)
    .map((p) => ({
      ...(p.name ? { name: p.name } : {}),
      ...(p.binaryPath ? { binaryPath: p.binaryPath } : {}),
    }))
    .filter((p) => Object.keys(p).length > 0);
  if (processes.length > 0) brief.processes = processes;
  if (finding.connections.length > 0)
    brief.connections = finding.connections
      .slice(0, 10)
      .map((c) => JSON.parse(JSON.stringify(c)) as JsonObject);
  return brief;
}

export function analystUserPrompt(args: {
  input: LogAnalystRequest;
  window: TimeWindow;
  windowSource: "request" | "default";
  finding: Finding;
  memories: readonly RecalledMemory[];
}): string {
  return renderPrompt("log-analyst.user", {
    ask: { request: args.input.request, ...(args.input.focus ? { focus: args.input.focus } : {}) },
    window: args.window,
    windowSource: args.windowSource,
    eventTime: args.finding.eventTime,
    finding: findingBrief(args.finding),
    memories: args.memories.map((m) => ({ id: m.id, claim: m.claim })),
  });
}
