import type { JsonObject } from "../domain/json.js";
import { joinMd, type Mrkdwn, md, truncateMd } from "./mrkdwn.js";

/** Slack's documented Block Kit limits; a message over any of them is rejected outright. */
export const SLACK_LIMITS = {
  blocksPerMessage: 50,
  sectionText: 3_000,
  headerText: 150,
  fieldsPerSection: 10,
  fieldText: 2_000,
  contextElements: 10,
  contextText: 3_000,
  /** The top-level `text` may be far longer, but it is the notification preview. */
  fallbackText: 3_000,
} as const;

export type Block = JsonObject;

// Slack rejects empty text objects; a dash keeps a block valid without inventing content.
function nonEmpty(text: string): string {
  return text.trim().length > 0 ? text : "—";
}

function cut(text: Mrkdwn, max: number): string {
  return nonEmpty(truncateMd(text, max).text);
}

/**
 * `verbatim: true` stops Slack from auto-linking URLs, channel names and mentions in the
 * text; escaping and defanging already neutralize them, this is the second lock.
 */
function mrkdwnObject(text: Mrkdwn, max: number): JsonObject {
  return { type: "mrkdwn", text: cut(text, max), verbatim: true };
}

/**
 * Headers are plain_text, which formats nothing; `emoji: false` keeps a `:shortcode:` in a
 * finding's category from turning into an emoji (ferret's own labels use Unicode emoji). The
 * escaped form is still what Slack expects for `&`, `<`, `>`.
 */
export function header(text: Mrkdwn): Block {
  const plain = nonEmpty(truncateMd(text, SLACK_LIMITS.headerText).plain).replace(/\s+/g, " ");
  return { type: "header", text: { type: "plain_text", text: plain, emoji: false } };
}

export function section(text: Mrkdwn): Block {
  return { type: "section", text: mrkdwnObject(text, SLACK_LIMITS.sectionText) };
}

/** A two-column grid; pairs beyond the field limit are dropped (callers keep it small). */
export function fields(items: readonly Mrkdwn[]): Block {
  return {
    type: "section",
    fields: items.slice(0, SLACK_LIMITS.fieldsPerSection).map((f) => mrkdwnObject(f, SLACK_LIMITS.fieldText)),
  };
}

export function context(elements: readonly Mrkdwn[]): Block {
  return {
    type: "context",
    elements: elements
      .slice(0, SLACK_LIMITS.contextElements)
      .map((e) => mrkdwnObject(e, SLACK_LIMITS.contextText)),
  };
}

export function divider(): Block {
  return { type: "divider" };
}

export interface ListSectionsOptions {
  /** At most this many sections; the rest of the items are counted in a last line. */
  maxSections: number;
  /** Item noun for the "…and N more" line, e.g. "IOCs". */
  noun: string;
  maxChars?: number;
}

/**
 * Packs list lines into as few sections as the text limit allows, title on the first.
 * Lines are expected to be individually short (callers cut them); a line longer than a
 * whole section is cut rather than dropped.
 */
export function listSections(title: Mrkdwn, lines: readonly Mrkdwn[], options: ListSectionsOptions): Block[] {
  const maxChars = options.maxChars ?? SLACK_LIMITS.sectionText;
  const reserve = 60; // room for the "…and N more" line
  const lineMax = maxChars - title.text.length - reserve - 1;
  const packed: Mrkdwn[][] = [];
  let current: Mrkdwn[] = [title];
  let length = title.text.length;
  let shown = 0;
  for (const line of lines) {
    const short = truncateMd(line, lineMax);
    if (length + 1 + short.text.length > maxChars - reserve) {
      if (packed.length + 1 >= options.maxSections) break;
      packed.push(current);
      current = [];
      length = -1;
    }
    current.push(short);
    length += 1 + short.text.length;
    shown += 1;
  }
  const hidden = lines.length - shown;
  if (hidden > 0) current.push(md`_…and ${hidden} more ${options.noun} not shown_`);
  packed.push(current);
  return packed.map((parts) => section(joinMd(parts, "\n")));
}

/**
 * Keeps a message within the block limit: the footer (who produced it, the console link)
 * always survives, the body is cut and the cut is summarized in a context block.
 */
export function fitBlocks(body: readonly Block[], footer: readonly Block[] = []): Block[] {
  const max = SLACK_LIMITS.blocksPerMessage;
  if (body.length + footer.length <= max) return [...body, ...footer];
  const keep = Math.max(0, max - footer.length - 1);
  const dropped = body.slice(keep);
  const kinds = summarizeDropped(dropped);
  const note = context([
    md`_${dropped.length} more blocks not shown (Slack allows ${max} per message): ${kinds}_`,
  ]);
  return [...body.slice(0, keep), note, ...footer];
}

function summarizeDropped(blocks: readonly Block[]): string {
  const counts = new Map<string, number>();
  for (const b of blocks) {
    const type = typeof b.type === "string" ? b.type : "block";
    counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return [...counts].map(([type, n]) => `${n} ${type}`).join(", ");
}
