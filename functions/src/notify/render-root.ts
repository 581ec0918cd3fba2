import { type AnalystDecision, currentDecision } from "../domain/analyst.js";
import type { Investigation } from "../domain/investigation.js";
import type { ChatMessage } from "../ports/chat-sink.js";
import { type Block, context, fields, fitBlocks, header, section } from "./block-kit.js";
import { renderThreadRoot } from "./blocks.js";
import { firstActionField, severityField, whyLine, whyText } from "./card-lines.js";
import { cardActions } from "./interactive.js";
import { joinMd, type Mrkdwn, md, slackMention, untrusted } from "./mrkdwn.js";
import { percent, severityText, VERDICT_LABEL, verdictText } from "./presentation.js";
import { iocLine } from "./render-conclusion.js";
import { footer, projectOf, resourceOf } from "./render-finding.js";
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

/**
 * The verdict card, read in five seconds: verdict and confidence in the header; why, in words;
 * the resource and project; one severity with what moved it; the first action; the top IOCs
 * defanged; who decided; the buttons; a footer that names the brain once.
 */
export function renderStatusBoard(investigation: Investigation, options: StatusBoardOptions): ChatMessage {
  const { status, conclusion } = investigation;
  if (status !== "concluded" && status !== "needs_human" && status !== "failed") {
    return renderThreadRoot(investigation);
  }
  const finding = investigation.finding;
  const category = inline(finding.category || "(no category)", 100);
  const blocks: Block[] = [];
  if (conclusion) {
    const v = VERDICT_LABEL[conclusion.verdict];
    const confidence = percent(conclusion.confidence);
    if (status === "concluded") {
      blocks.push(header(md`${v.emoji} ${v.text} · ${confidence} confidence — ${category}`));
    } else {
      blocks.push(
        header(md`${STOPPED_HEAD[status]} — ${category}`),
        section(
          md`*Draft verdict, not applied:* ${verdictText(conclusion.verdict)} · ${confidence} confidence — ${inline(investigation.reason ?? "no reason recorded", 300)}`,
        ),
      );
    }
    blocks.push(section(whyLine(conclusion)));
    const action = firstActionField(conclusion);
    blocks.push(
      fields([
        md`*Resource*\n${inline(resourceOf(finding) || "—", 500)}`,
        md`*Project*\n${inline(projectOf(finding) ?? "—", 300)}`,
        severityField(conclusion, finding.severity),
        ...(action ? [action] : []),
      ]),
    );
    if (conclusion.iocs.length > 0) {
      const shown = conclusion.iocs.slice(0, TOP_IOCS).map(iocLine);
      const more = conclusion.iocs.length - shown.length;
      const tail = more > 0 ? [md`_…and ${more} more in the thread_`] : [];
      blocks.push(section(joinMd([md`*Top indicators* (defanged)`, ...shown, ...tail], "\n")));
    }
    blocks.push(context([decisionLine(currentDecision(investigation.analystDecisions))]));
  } else {
    blocks.push(
      header(md`${STOPPED_HEAD[status === "concluded" ? "needs_human" : status]} — ${category}`),
      section(md`${inline(investigation.reason ?? "no reason recorded", 500)}`),
      fields([
        md`*Resource*\n${inline(resourceOf(finding) || "—", 500)}`,
        md`*Project*\n${inline(projectOf(finding) ?? "—", 300)}`,
        md`*Severity*\n${severityText(finding.severity)} (SCC's; no verdict)`,
      ]),
    );
  }
  const actions = cardActions(investigation.id, {
    verdict: conclusion !== undefined,
    scc: options.sccButtons,
    reinvestigate: true,
  });
  const tail = [...(actions ? [actions] : []), footer(investigation)];
  const text = conclusion
    ? md`${verdictText(conclusion.verdict)} (${percent(conclusion.confidence)}) — ${category} on ${inline(resourceShort(finding), 120)}: ${inline(whyText(conclusion), 300)}`
    : md`${STOPPED_HEAD[status === "concluded" ? "needs_human" : status]} — ${category}`;
  return { text: fallbackText(text), blocks: fitBlocks(blocks, tail) };
}

/** The resource's display name, else the last segment of its full name, for the notification line. */
function resourceShort(finding: Investigation["finding"]): string {
  return finding.resource.displayName || finding.resource.name.split("/").at(-1) || "(no resource)";
}
