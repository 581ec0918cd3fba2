import type { LogAnalystBrief } from "../agent/briefs.js";
import type { Finding } from "../domain/finding/finding.js";
import type { JsonObject } from "../domain/json.js";
import { factText } from "../memory/fact.js";
import { type RenderedPrompt, renderPrompt } from "../prompts/render.js";
import { LOG_ANALYST_TOOLS } from "./tool-names.js";

function firstSentence(text: string): string {
  const end = text.indexOf(". ");
  return end === -1 ? text : text.slice(0, end + 1);
}

/** The log analyst's prompt, rendered from its brief alone (the loop's position is not shown). */
export function logAnalystPrompt(brief: LogAnalystBrief): RenderedPrompt {
  const system = renderPrompt("log-analyst.system", {
    dialect: brief.dialect,
    tables: brief.tables,
    runbooks: brief.runbooks.map((r) => ({ ...r, description: firstSentence(r.description) })),
    maxIterations: brief.maxIterations,
    tools: LOG_ANALYST_TOOLS,
  });
  const user = renderPrompt("log-analyst.user", {
    ask: { request: brief.request, ...(brief.focus ? { focus: brief.focus } : {}) },
    window: brief.window,
    windowSource: brief.windowSource,
    eventTime: brief.finding.eventTime,
    finding: findingForAnalyst(brief.finding),
    memories: brief.memories.map(({ id, fact }) => ({ id, fact: factText(fact) })),
  });
  return { system, user };
}

/**
 * What the analyst needs of the finding: what, when, where and the indicators. Free text
 * (description, sourceProperties) stays with the main agent; the analyst gets a question.
 */
export function findingForAnalyst(finding: Finding): JsonObject {
  const shown: JsonObject = {
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
    shown.access = {
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
  if (processes.length > 0) shown.processes = processes;
  if (finding.connections.length > 0)
    shown.connections = finding.connections
      .slice(0, 10)
      .map((c) => JSON.parse(JSON.stringify(c)) as JsonObject);
  return shown;
}
