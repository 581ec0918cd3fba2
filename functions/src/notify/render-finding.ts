import type { Finding } from "../domain/finding/finding.js";
import type { Investigation } from "../domain/investigation.js";
import { brainOf } from "../model/brain.js";
import { type Block, context, fields } from "./block-kit.js";
import { label, type Mrkdwn, md, slackLink, untrusted } from "./mrkdwn.js";
import { OFFLINE_MODEL_NOTE, severityText } from "./presentation.js";
import { sccFindingUrl } from "./scc-link.js";

const one = (raw: string | undefined, max = 300): Mrkdwn =>
  untrusted(raw && raw.length > 0 ? raw : "—", { max, inline: true });

export function projectOf(finding: Finding): string | undefined {
  const r = finding.resource;
  if (r.projectDisplayName && r.project && !r.project.endsWith(r.projectDisplayName)) {
    return `${r.projectDisplayName} (${r.project})`;
  }
  return r.projectDisplayName ?? r.project;
}

/** The full resource name, led by the display name when the name does not already say it. */
export function resourceOf(finding: Finding): string {
  const { name, displayName } = finding.resource;
  if (displayName && name && !name.endsWith(`/${displayName}`)) return `${displayName} (${name})`;
  return name || displayName || "";
}

/** Category, severity, resource, project and event time: the lines a triager reads first. */
export function findingFields(finding: Finding): Block {
  return fields([
    md`*Category*\n${one(finding.category, 200)}`,
    md`*Severity*\n${label(severityText(finding.severity))}`,
    md`*Resource*\n${one(resourceOf(finding), 500)}`,
    md`*Project*\n${one(projectOf(finding), 300)}`,
    md`*Event time*\n${one(finding.eventTime, 60)}`,
    md`*Class*\n${one(finding.findingClass, 60)}`,
  ]);
}

/** Link text is ours; the URL exists only when the finding name passes validation. */
export function findingReference(finding: Finding): Mrkdwn {
  const url = sccFindingUrl(finding.name);
  if (url) return slackLink(url, "Open the finding in Security Command Center");
  return md`Finding ${one(finding.name, 400)} (no console link: the name is not a valid SCC finding name)`;
}

/**
 * The brain, named once per message: the offline model, the LLM, or the LLM then the offline
 * model, with why the LLM was left when that was recorded.
 */
export function modelDescription(
  investigation: Pick<Investigation, "model" | "fellBackToOffline" | "conclusion" | "fallbackReason">,
): Mrkdwn {
  const brain = brainOf(investigation);
  if (brain.kind === "offline") return label(OFFLINE_MODEL_NOTE);
  if (brain.kind === "llm_then_offline") {
    const why = investigation.fallbackReason;
    return why
      ? md`${one(brain.model, 80)}, then the ${label(OFFLINE_MODEL_NOTE)} after the LLM became unavailable (${one(why, 160)})`
      : md`${one(brain.model, 80)}, then the ${label(OFFLINE_MODEL_NOTE)} after the LLM became unavailable`;
  }
  return one(brain.model, 80);
}

export function footer(investigation: Investigation): Block {
  return context([
    findingReference(investigation.finding),
    md`Investigation ${one(investigation.id, 40)} · model: ${modelDescription(investigation)}`,
  ]);
}
