import type { ApprovalOutcome } from "../domain/approval-record.js";
import type { Conclusion } from "../domain/conclusion.js";
import type { Investigation } from "../domain/investigation.js";
import type { Ioc } from "../domain/ioc.js";
import { ACTION_LINK_LEAD, actionCallText } from "../domain/response-actions.js";
import { OFFLINE_CONCLUDER_NOTE } from "../model/brain.js";
import { describeUsage } from "../model/cost.js";
import type { ChatMessage } from "../ports/chat-sink.js";
import {
  type Block,
  context,
  divider,
  fields,
  fitBlocks,
  header,
  listSections,
  section,
} from "./block-kit.js";
import { severityField } from "./card-lines.js";
import { defangIoc } from "./defang.js";
import { joinMd, label, type Mrkdwn, md, slackMention, untrusted } from "./mrkdwn.js";
import { percent, VERDICT_LABEL, verdictText } from "./presentation.js";
import { footer } from "./render-finding.js";
import { fallbackText } from "./render-text.js";

const inline = (raw: string, max: number): Mrkdwn => untrusted(raw, { max, inline: true });

/** IOCs are shown defanged and never as links; hashes stay intact for copy-paste. */
export function iocLine(ioc: Ioc): Mrkdwn {
  const value = inline(defangIoc(ioc), 300);
  const why = ioc.context ? md` — ${inline(ioc.context, 160)}` : md``;
  return md`• ${ioc.type} ${value}${why}`;
}

function keyFindingLine(k: Conclusion["keyFindings"][number], index: number): Mrkdwn {
  const evidence = k.evidence.slice(0, 3).map((e) => {
    const where = e.stepId ? md`${inline(e.stepId, 40)} · ${inline(e.source, 80)}` : inline(e.source, 80);
    return md`      ↳ _${where}_: ${inline(e.detail, 300)}`;
  });
  const more =
    k.evidence.length > 3 ? [md`      ↳ _…and ${k.evidence.length - 3} more pieces of evidence_`] : [];
  return joinMd([md`*${index + 1}.* ${inline(k.finding, 400)}`, ...evidence, ...more], "\n");
}

const PRIORITIES = [
  { key: "immediate", title: "Immediately" },
  { key: "soon", title: "Soon" },
  { key: "later", title: "Later" },
] as const;

function actionLines(actions: Conclusion["recommendedActions"]): Mrkdwn[] {
  const lines: Mrkdwn[] = [];
  for (const p of PRIORITIES) {
    const group = actions.filter((a) => a.priority === p.key);
    if (group.length === 0) continue;
    lines.push(md`_${p.title}_`);
    for (const a of group) {
      lines.push(md`• ${inline(a.action, 400)}`);
      // Finding-derived arguments (a member, a key name) are shown as data, like the action text.
      if (a.link) lines.push(md`      ↳ _${ACTION_LINK_LEAD}_ ${inline(actionCallText(a.link), 400)}`);
    }
  }
  return lines;
}

const OUTCOME_TEXT: Record<ApprovalOutcome["outcome"], string> = {
  ran: "▶️ ran",
  failed: "⚠️ ran and failed",
  denied: "⛔ denied",
  timed_out: "⌛ timed out, not run",
  pending: "⏸ approved, not run before the end",
};

/** One acting call: tool, step, outcome, who decided and when, the digest it was bound to. */
function approvalLine(o: ApprovalOutcome): Mrkdwn {
  const who = o.decidedBy ? md` by ${slackMention(o.decidedBy.id)}` : md``;
  return md`• ${inline(o.tool, 64)} (step ${o.stepId}): ${OUTCOME_TEXT[o.outcome]}${who}${o.decidedAt ? md` at ${o.decidedAt}` : md``} · ${o.approvalId} · sha256 ${o.argsDigest.slice(0, 12)}…`;
}

/**
 * What the footer's brain does not already say: the concluder's note when the LLM failed and
 * the offline model took over (when and why). The offline model's standard note only repeats
 * the footer, so it is left out: the message names the brain once.
 */
export function producedByNote(conclusion: Conclusion): Mrkdwn[] {
  const rest = (conclusion.producedBy.note ?? "").replace(OFFLINE_CONCLUDER_NOTE, "").trim();
  return rest.length > 0 ? [md`${inline(rest, 300)}`] : [];
}

/**
 * The verdict message: verdict, confidence, severity, summary, ATT&CK techniques, key
 * findings with evidence, defanged IOCs, actions by priority, open questions, provenance.
 */
export function renderConclusion(investigation: Investigation, conclusion: Conclusion): ChatMessage {
  const v = VERDICT_LABEL[conclusion.verdict];
  const category = inline(investigation.finding.category, 100);
  const blocks: Block[] = [
    header(md`${v.emoji} ${v.text} — ${category}`),
    fields([
      md`*Verdict*\n${verdictText(conclusion.verdict)}`,
      md`*Confidence*\n${percent(conclusion.confidence)}`,
      severityField(conclusion, investigation.finding.severity),
    ]),
    section(md`*Summary*\n${untrusted(conclusion.summary, { max: 2_800 })}`),
  ];
  if (conclusion.mitre.length > 0) {
    const lines = conclusion.mitre.map((m) => {
      const name = m.techniqueName ? md` ${inline(m.techniqueName, 150)}` : md``;
      return md`• ${inline(m.techniqueId, 20)}${name} (${inline(m.tactic, 80)})`;
    });
    blocks.push(...listSections(label("*MITRE ATT&CK*"), lines, { maxSections: 1, noun: "techniques" }));
  }
  if (conclusion.keyFindings.length > 0) {
    blocks.push(
      divider(),
      ...listSections(md`*Key findings*`, conclusion.keyFindings.map(keyFindingLine), {
        maxSections: 6,
        noun: "key findings",
      }),
    );
  }
  if (conclusion.iocs.length > 0) {
    blocks.push(
      ...listSections(md`*Indicators* (defanged, ${conclusion.iocs.length})`, conclusion.iocs.map(iocLine), {
        maxSections: 3,
        noun: "IOCs",
      }),
    );
  }
  const actions = actionLines(conclusion.recommendedActions);
  if (actions.length > 0) {
    blocks.push(
      divider(),
      ...listSections(md`*Recommended actions*`, actions, { maxSections: 2, noun: "lines" }),
    );
  }
  if (conclusion.approvals?.length) {
    blocks.push(
      ...listSections(
        md`*Approvals* (acting calls and who decided)`,
        conclusion.approvals.map(approvalLine),
        {
          maxSections: 1,
          noun: "approvals",
        },
      ),
    );
  }
  if (conclusion.openQuestions.length > 0) {
    const questions = conclusion.openQuestions.map((q) => md`• ${inline(q, 400)}`);
    blocks.push(...listSections(md`*Open questions*`, questions, { maxSections: 1, noun: "questions" }));
  }
  const notes = [...producedByNote(conclusion), ...usageLine(investigation)];
  const tail = [...(notes.length > 0 ? [context(notes)] : []), footer(investigation)];
  return {
    text: fallbackText(
      md`${verdictText(conclusion.verdict)} (${percent(conclusion.confidence)}) — ${category}: ${inline(conclusion.summary, 300)}`,
    ),
    blocks: fitBlocks(blocks, tail),
  };
}

/**
 * Tokens and estimated cost of the investigation, once a priced model did work: offline
 * playbook runs cost nothing and their token counts are estimates, so they show no line.
 */
function usageLine(investigation: Investigation): Mrkdwn[] {
  const usage = investigation.counters.usage;
  return usage.costUsd === undefined ? [] : [md`${inline(describeUsage(usage), 200)}`];
}
