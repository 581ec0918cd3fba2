import { type AnalystDecision, currentDecision } from "../domain/analyst.js";
import type { Investigation } from "../domain/investigation.js";
import type { ChatMessage } from "../ports/chat-sink.js";
import { type Block, context, fields, fitBlocks, header, section } from "./block-kit.js";
import { renderThreadRoot } from "./blocks.js";
import { cardActions } from "./interactive.js";
import { joinMd, type Mrkdwn, md, slackMention, untrusted } from "./mrkdwn.js";
import { percent, severityText, VERDICT_LABEL, verdictText } from "./presentation.js";
import { iocLine, producedBy } from "./render-conclusion.js";
import { footer } from "./render-finding.js";
import { fallbackText } from "./render-text.js";

/**
 * The thread root as a status board, replaced in place (chat.update) as the investigation
 * moves: "investigating" with the finding and plan, then the verdict card the channel reads
 * without opening the thread. Details stay in the thread.
 */

export interface StatusBoardOptions {
  /** Offer Mute in SCC / Mark inactive in SCC (config scc.analystMuteAndState with scc.writeback). */
  sccButtons: boolean;
}

const TOP_IOCS = 3;
const inline = (raw: string, max: number): Mrkdwn => untrusted(raw, { max, inline: true });

/** The first sentence of the summary, kept to one line: the channel view is a list of these. */
export function oneLine(summary: string, max = 280): string {
  const flat = summary.replace(/\s+/g, " ").trim();
  const end = flat.search(/[.!?](\s|$)/);
  return end > 0 && end < max ? flat.slice(0, end + 1) : flat;
}

const STOPPED_HEAD: Record<"needs_human" | "failed", string> = {
  needs_human: "🙋 Needs a person",
  failed: "💥 Investigation failed",
};

/** Who decided: ferret's model, then whatever an analyst said about it. */
export function decisionLine(decision: AnalystDecision | undefined): Mrkdwn {
  if (!decision) return md`_No analyst decision yet._`;
  const who = slackMention(decision.by.id);
  const at = inline(decision.at.slice(0, 16).replace("T", " "), 20);
  if (decision.kind === "confirm") return md`👍 Confirmed by ${who} · ${at} UTC`;
  const verdict = decision.verdict ? verdictText(decision.verdict) : "another verdict";
  const reason = decision.reason ? md` — “${inline(decision.reason, 300)}”` : md``;
  return md`✋ Disputed by ${who}: ${verdict}${reason} · ${at} UTC`;
}

export function renderStatusBoard(investigation: Investigation, options: StatusBoardOptions): ChatMessage {
  const { status, conclusion } = investigation;
  if (status !== "concluded" && status !== "needs_human" && status !== "failed") {
    return renderThreadRoot(investigation);
  }
  const category = inline(investigation.finding.category || "(no category)", 100);
  const blocks: Block[] = [];
  if (conclusion) {
    const v = VERDICT_LABEL[conclusion.verdict];
    const head =
      status === "concluded"
        ? md`${v.emoji} ${v.text} — ${category}`
        : md`${STOPPED_HEAD[status]} — ${category}`;
    blocks.push(
      header(head),
      fields([
        md`*Verdict*\n${verdictText(conclusion.verdict)}${status === "concluded" ? "" : " (draft)"}`,
        md`*Confidence*\n${percent(conclusion.confidence)}`,
        md`*Severity*\n${severityText(conclusion.severity)}`,
        md`*Finding severity*\n${severityText(investigation.finding.severity)}`,
      ]),
      section(md`${untrusted(oneLine(conclusion.summary), { max: 300, inline: true })}`),
    );
    if (conclusion.iocs.length > 0) {
      const shown = conclusion.iocs.slice(0, TOP_IOCS).map(iocLine);
      const more = conclusion.iocs.length - shown.length;
      const tail = more > 0 ? [md`_…and ${more} more in the thread_`] : [];
      blocks.push(section(joinMd([md`*Top indicators* (defanged)`, ...shown, ...tail], "\n")));
    }
    blocks.push(
      context([producedBy(conclusion), decisionLine(currentDecision(investigation.analystDecisions))]),
    );
  } else {
    blocks.push(
      header(md`${STOPPED_HEAD[status === "concluded" ? "needs_human" : status]} — ${category}`),
      section(md`${inline(investigation.reason ?? "no reason recorded", 500)}`),
    );
  }
  const actions = cardActions(investigation.id, {
    verdict: conclusion !== undefined,
    scc: options.sccButtons,
    reinvestigate: true,
  });
  const tail = [...(actions ? [actions] : []), footer(investigation)];
  const text = conclusion
    ? md`${verdictText(conclusion.verdict)} (${percent(conclusion.confidence)}) — ${category}: ${inline(oneLine(conclusion.summary), 300)}`
    : md`${STOPPED_HEAD[status === "concluded" ? "needs_human" : status]} — ${category}`;
  return { text: fallbackText(text), blocks: fitBlocks(blocks, tail) };
}
