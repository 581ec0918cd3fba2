import type { Investigation, InvestigationEvent } from "../domain/investigation.js";
import type { ChatMessage } from "../ports/chat-sink.js";
import { context, SLACK_LIMITS } from "./block-kit.js";
import { md, untrusted } from "./mrkdwn.js";
import { fallbackText } from "./render-text.js";

/**
 * What the storm governor adds to a Slack thread: a note when a finding waits in the queue,
 * and the count of related findings grouped into the investigation, on its root.
 */

/** The reply for a `queued` event: how many wait ahead and which limit held it back. */
export function renderQueuedNote(event: InvestigationEvent): ChatMessage {
  const text = md`⏸️ *Queued by the storm governor:* ${untrusted(event.message, { max: 500 })}. It starts when a slot frees, by severity then age.`;
  return { text: fallbackText(text), blocks: [context([text])] };
}

export function relatedLine(count: number): string {
  return `+ ${count} related finding${count === 1 ? "" : "s"} (same category and principal or resource) grouped into this investigation`;
}

/**
 * The root message with the related-findings count appended just before its last block (the
 * footer); unchanged when there is nothing grouped or no room left in Block Kit's 50 blocks.
 */
export function withRelatedCount(
  message: ChatMessage,
  investigation: Pick<Investigation, "relatedCount">,
): ChatMessage {
  const count = investigation.relatedCount ?? 0;
  if (count === 0 || message.blocks.length >= SLACK_LIMITS.blocksPerMessage) return message;
  const note = context([md`🔗 ${relatedLine(count)}`]);
  const blocks = [...message.blocks];
  blocks.splice(Math.max(0, blocks.length - 1), 0, note);
  return { ...message, text: `${message.text} (${relatedLine(count)})`, blocks };
}
