import type { Conclusion } from "../domain/conclusion.js";
import type { Severity } from "../domain/finding/finding.js";
import { withoutOfflineMark } from "../model/brain.js";
import { joinMd, type Mrkdwn, md, untrusted } from "./mrkdwn.js";
import { severityText } from "./presentation.js";

/**
 * The lines of the verdict card an analyst reads in five seconds (issue 29): why the verdict,
 * one severity with what moved it, the first thing to do. Each from the conclusion, each one
 * line; the thread keeps the details.
 */

const inline = (raw: string, max: number): Mrkdwn => untrusted(raw, { max, inline: true });

/** The first sentence, kept to one line. */
export function firstSentence(summary: string, max = 280): string {
  const flat = summary.replace(/\s+/g, " ").trim();
  const end = flat.search(/[.!?](\s|$)/);
  return end > 0 && end < max ? flat.slice(0, end + 1) : flat;
}

/**
 * Why, in words: the conclusion's own `why`; for conclusions written before it existed, the
 * first key finding (the evidence the verdict rests on), else the summary's first sentence
 * without the offline model's mark (the footer names the brain once).
 */
export function whyText(conclusion: Conclusion): string {
  if (conclusion.why) return conclusion.why;
  const first = conclusion.keyFindings[0]?.finding;
  if (first) return firstSentence(first, 300);
  return firstSentence(withoutOfflineMark(conclusion.summary), 300);
}

export function whyLine(conclusion: Conclusion): Mrkdwn {
  return md`*Why:* ${inline(whyText(conclusion), 300)}`;
}

const RANK: Record<Severity, number> = { SEVERITY_UNSPECIFIED: 0, LOW: 1, MEDIUM: 2, HIGH: 3, CRITICAL: 4 };

/**
 * One severity: ferret's. SCC's is named only to say whether ferret kept it, or raised or
 * lowered it and why ("Severity" and "Finding severity" side by side explained nothing).
 */
export function severityField(conclusion: Conclusion, findingSeverity: Severity): Mrkdwn {
  const ours = severityText(conclusion.severity);
  if (conclusion.severity === findingSeverity) return md`*Severity*\n${ours} (as SCC rated it)`;
  const reason = conclusion.severityReason ? inline(conclusion.severityReason, 300) : md`_no reason given_`;
  if (findingSeverity === "SEVERITY_UNSPECIFIED") {
    return md`*Severity*\n${ours}, set by ferret (SCC gave none): ${reason}`;
  }
  const moved = RANK[conclusion.severity] > RANK[findingSeverity] ? "raised" : "lowered";
  return md`*Severity*\n${ours}, ${moved} by ferret from SCC's ${severityText(findingSeverity)}: ${reason}`;
}

const ORDER = { immediate: 0, soon: 1, later: 2 } as const;
const WHEN = { immediate: "now", soon: "soon", later: "later" } as const;

/** The most urgent recommended action (the first of its priority), and how many more the thread has. */
export function firstActionField(conclusion: Conclusion): Mrkdwn | undefined {
  const actions = conclusion.recommendedActions;
  const first = [...actions].sort((a, b) => ORDER[a.priority] - ORDER[b.priority])[0];
  if (!first) return undefined;
  const more = actions.length - 1;
  const notes = [
    ...(first.link ? [md`ferret can do this with approval`] : []),
    ...(more > 0 ? [md`${more} more in the thread`] : []),
  ];
  const tail = notes.length > 0 ? md`\n_${joinMd(notes, " · ")}_` : md``;
  return md`*First action* (${WHEN[first.priority]})\n${inline(first.action, 400)}${tail}`;
}
