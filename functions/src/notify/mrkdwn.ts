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
  /**
   * The same message for a plain_text object (a header): untrusted parts are not wrapped as
   * code there, since plain_text formats nothing and would show the backticks.
   */
  readonly plain: string;
  private constructor(text: string, plain: string) {
    this.text = text;
    this.plain = plain;
  }
  static [mint](text: string, plain: string = text): Mrkdwn {
    return new Mrkdwn(text, plain);
  }
  toString(): string {
    return this.text;
  }
}

export type MdValue = Mrkdwn | string | number;

function piece(value: MdValue): { text: string; plain: string } {
  if (value instanceof Mrkdwn) return { text: value.text, plain: value.plain };
  if (typeof value === "number") return { text: String(value), plain: String(value) };
  return { text: safeText(value), plain: safeText(value, { plain: true }) };
}

/** ferret's markup with sanitized values: md`*Verdict* ${verdict}`. */
export function md(strings: TemplateStringsArray, ...values: MdValue[]): Mrkdwn {
  let text = strings[0] ?? "";
  let plain = text;
  values.forEach((value, i) => {
    const p = piece(value);
    text += p.text + (strings[i + 1] ?? "");
    plain += p.plain + (strings[i + 1] ?? "");
  });
  return Mrkdwn[mint](text, plain);
}

/** Untrusted text, optionally cut to `max` escaped characters or flattened to one line. */
export function untrusted(raw: string, options: SafeTextOptions = {}): Mrkdwn {
  return Mrkdwn[mint](safeText(raw, options), safeText(raw, { ...options, plain: true }));
}

/** A constant of ours that may contain `&`, `<` or `>` literally (e.g. "ATT&CK"). */
export function label(text: string): Mrkdwn {
  return Mrkdwn[mint](escapeMrkdwn(text));
}

export function joinMd(parts: readonly Mrkdwn[], separator: string): Mrkdwn {
  const sep = escapeMrkdwn(separator);
  return Mrkdwn[mint](parts.map((p) => p.text).join(sep), parts.map((p) => p.plain).join(sep));
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
  if (value.text.length <= max && value.plain.length <= max) return value;
  return Mrkdwn[mint](cutOutsideLinks(value.text, max), cutOutsideLinks(value.plain, max));
}

function cutOutsideLinks(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = truncate(text, max);
  const open = cut.lastIndexOf("<");
  if (open >= 0 && cut.indexOf(">", open) < 0) cut = `${cut.slice(0, open)}…`;
  return cut;
}

/**
 * A mention of a Slack user by id (`<@U…>`). Only a validated id is accepted, so the markup
 * cannot carry a broadcast (`<!channel>`) or a link; anything else renders as "someone".
 */
export function slackMention(userId: string): Mrkdwn {
  return Mrkdwn[mint](/^[UW][A-Z0-9]{2,}$/.test(userId) ? `<@${userId}>` : "someone");
}
