import type { Investigation } from "../domain/investigation.js";
import type { ChatMessage } from "../ports/chat-sink.js";
import { type Block, context, divider, fitBlocks, header, section } from "./block-kit.js";
import { type Mrkdwn, md, untrusted } from "./mrkdwn.js";
import { severityText } from "./presentation.js";
import { findingFields, footer, resourceOf } from "./render-finding.js";
import { planBlocks } from "./render-plan.js";
import { fallbackText } from "./render-text.js";

/**
 * Pure renderers from domain state to Slack messages ({ text, blocks }). Every value that
 * came from a finding, a log row, intel or the model goes through `untrusted()`/`md`, so it
 * is escaped, defanged and cut to Block Kit limits; the notifier only picks and posts.
 */
export { renderConclusion } from "./render-conclusion.js";
export {
  renderCompressed,
  renderEventNote,
  renderReflection,
  renderStepFinished,
} from "./render-progress.js";
export { renderStopped } from "./render-stopped.js";

const inline = (raw: string, max: number): Mrkdwn => untrusted(raw, { max, inline: true });

/** The thread root: the finding headline and, once there is one, the plan. */
export function renderThreadRoot(investigation: Investigation): ChatMessage {
  const f = investigation.finding;
  const category = inline(f.category || "(no category)", 120);
  const blocks: Block[] = [header(md`🔎 ${category}`), findingFields(f)];
  if (f.description) blocks.push(section(md`${untrusted(f.description, { max: 700 })}`));
  blocks.push(divider());
  if (investigation.plan) blocks.push(...planBlocks(investigation.plan));
  else blocks.push(context([md`⏳ ferret is planning the investigation…`]));
  const resource = inline(resourceOf(f), 200);
  return {
    text: fallbackText(md`ferret is investigating ${severityText(f.severity)} ${category} on ${resource}`),
    blocks: fitBlocks(blocks, [footer(investigation)]),
  };
}

/** The plan as a reply, for threads whose root was posted before the plan existed. */
export function renderPlanReply(investigation: Investigation): ChatMessage | undefined {
  if (!investigation.plan) return undefined;
  return {
    text: fallbackText(md`Plan: ${inline(investigation.plan.objective, 300)}`),
    blocks: fitBlocks(planBlocks(investigation.plan)),
  };
}
