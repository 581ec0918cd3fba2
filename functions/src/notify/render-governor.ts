import type { GroupedFinding, Investigation, InvestigationEvent } from "../domain/investigation.js";
import type { ChatMessage } from "../ports/chat-sink.js";
import { context, SLACK_LIMITS, section } from "./block-kit.js";
import { type Mrkdwn, md, untrusted } from "./mrkdwn.js";
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
  return `+ ${count} related finding${count === 1 ? "" : "s"} (same category and principal or resource) met this investigation's group`;
}

/** The last part of a finding name, enough to tell grouped findings apart on a card. */
function shortName(name: string): string {
  return name.split("/").at(-1) ?? name;
}

/** One grouped finding: covered by this investigation and why, or where it was examined and with what outcome. */
function groupedLine(g: GroupedFinding): Mrkdwn {
  const what = md`\`${shortName(g.name)}\` (${g.eventTime})`;
  return g.examination === "covered"
    ? md`• ${what}: covered by this investigation because ${g.reason.slice(0, 300)}`
    : md`• ${what}: examined in its own investigation \`${g.findingId}\` because ${g.reason.slice(0, 300)}; outcome: *${g.outcome ?? "not started yet"}*`;
}

/**
 * The root message with the group appended just before its last block (the footer): the count,
 * then each listed grouped finding with how it was examined (issue 27: "+ 1 related finding"
 * hid a real attack behind a decoy's verdict). Unchanged when nothing is grouped or no room is
 * left in Block Kit's 50 blocks.
 */
export function withRelatedCount(
  message: ChatMessage,
  investigation: Pick<Investigation, "id" | "relatedCount" | "grouped">,
): ChatMessage {
  const listed = investigation.grouped ?? [];
  const count = Math.max(investigation.relatedCount ?? 0, listed.length);
  if (count === 0 || message.blocks.length >= SLACK_LIMITS.blocksPerMessage) return message;
  const more = count - listed.length;
  const lines = [
    md`🔗 *${relatedLine(count)}*`,
    ...listed.map(groupedLine),
    ...(more > 0
      ? [
          md`…and ${more} more, each with how it was examined under \`investigations/${investigation.id}/related\``,
        ]
      : []),
  ];
  const note = section(lines.reduce((all, line) => md`${all}\n${line}`));
  const blocks = [...message.blocks];
  blocks.splice(Math.max(0, blocks.length - 1), 0, note);
  return { ...message, text: `${message.text} (${relatedLine(count)})`, blocks };
}
