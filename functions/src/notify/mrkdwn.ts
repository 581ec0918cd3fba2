import { InvalidInputError } from "../domain/errors.js";
import { escapeMrkdwn, type SafeTextOptions, safeText, truncate } from "./escape.js";

// Not exported: only this module can mint Mrkdwn values.
const mint = Symbol("mint Mrkdwn");

/**
 * Text that is safe to hand to Slack as mrkdwn. The only ways to get one are the `md`
 * template (its literal parts are ferret's own markup, every interpolated string is treated
 * as untrusted and sanitized), `untrusted()`, and `slackLink()` with a URL built by code.
 * Block builders accept nothing else, so forgetting to escape a value does not compile.
 */
export class Mrkdwn {
  readonly text: string;
  private constructor(text: string) {
    this.text = text;
  }
  static [mint](text: string): Mrkdwn {
    return new Mrkdwn(text);
  }
  toString(): string {
    return this.text;
  }
}

export type MdValue = Mrkdwn | string | number;

function piece(value: MdValue): string {
  if (value instanceof Mrkdwn) return value.text;
  if (typeof value === "number") return String(value);
  return safeText(value);
}

/** ferret's markup with sanitized values: md`*Verdict* ${verdict}`. */
export function md(strings: TemplateStringsArray, ...values: MdValue[]): Mrkdwn {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += piece(value) + (strings[i + 1] ?? "");
  });
  return Mrkdwn[mint](out);
}

/** Untrusted text, optionally cut to `max` escaped characters or flattened to one line. */
export function untrusted(raw: string, options: SafeTextOptions = {}): Mrkdwn {
  return Mrkdwn[mint](safeText(raw, options));
}

/** A constant of ours that may contain `&`, `<` or `>` literally (e.g. "ATT&CK"). */
export function label(text: string): Mrkdwn {
  return Mrkdwn[mint](escapeMrkdwn(text));
}

export function joinMd(parts: readonly Mrkdwn[], separator: string): Mrkdwn {
  return Mrkdwn[mint](parts.map((p) => p.text).join(escapeMrkdwn(separator)));
}

/**
 * A link whose URL was built by ferret from validated parts; the label is fixed text of ours.
 * Refuses anything that could break out of Slack's `<url|label>` syntax.
 */
export function slackLink(url: URL, text: string): Mrkdwn {
  const href = url.toString();
  if (!/^https:\/\/[^\s<>|]+$/.test(href))
    throw new InvalidInputError("refusing to build a Slack link from an unsafe URL", { href });
  return Mrkdwn[mint](`<${href}|${escapeMrkdwn(text).replace(/\|/g, "/")}>`);
}

/**
 * Cuts safe text to `max` characters. Sanitized data never contains a raw `<`, so a raw `<`
 * is the start of one of our links; a cut inside it drops the whole link instead of leaving
 * half of one for Slack to parse.
 */
export function truncateMd(value: Mrkdwn, max: number): Mrkdwn {
  if (value.text.length <= max) return value;
  let cut = truncate(value.text, max);
  const open = cut.lastIndexOf("<");
  if (open >= 0 && cut.indexOf(">", open) < 0) cut = `${cut.slice(0, open)}…`;
  return Mrkdwn[mint](cut);
}

/**
 * A mention of a Slack user by id (`<@U…>`). Only a validated id is accepted, so the markup
 * cannot carry a broadcast (`<!channel>`) or a link; anything else renders as "someone".
 */
export function slackMention(userId: string): Mrkdwn {
  return Mrkdwn[mint](/^[UW][A-Z0-9]{2,}$/.test(userId) ? `<@${userId}>` : "someone");
}
