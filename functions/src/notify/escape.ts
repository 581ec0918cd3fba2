import { visibleText } from "../domain/visible-text.js";
import { defangText } from "./defang.js";

/**
 * Every string from a finding, a log row, threat intel or the model is attacker-influenced.
 * Slack treats `&`, `<` and `>` as control characters in every text object (mentions such as
 * `<!channel>`, `<@U…>`, `<#C…>`, `<!subteam^…>`, links such as `<http://x|click>`), so they are
 * entity-escaped; zero-width and direction-control characters are removed or made visible
 * first so nothing can hide between a `<` and a `!` or disguise a file name.
 */

const BROADCAST = /@(?=(?:channel|here|everyone)\b)/gi;

/** Removes invisible and control characters and marks bidi controls: the one sanitizer, domain/visible-text.ts. */
export const stripInvisible = visibleText;

export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Bare `@here`/`@channel`/`@everyone` only notify with `link_names`, which ferret never sets;
 * rewriting them anyway keeps a pasted message or a future flag change from paging a channel.
 */
export function neutralizeBroadcasts(text: string): string {
  return text.replace(BROADCAST, "[@]");
}

/**
 * Cuts to at most `max` characters with an ellipsis, never inside a surrogate pair or an
 * HTML entity (a dangling `&am` would show up as text).
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return "…".slice(0, max);
  let cut = text.slice(0, max - 1).replace(/&[a-z]{0,4}$/i, "");
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Collapses line breaks and runs of spaces, for values shown on one line. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export interface SafeTextOptions {
  /** Maximum length of the escaped result. */
  max?: number;
  /** Collapse line breaks (list items, fields, headers). */
  inline?: boolean;
}

/** The whole pipeline for untrusted text shown in Slack: clean, defang, neutralize, escape, cut. */
export function safeText(raw: string, options: SafeTextOptions = {}): string {
  const clean = stripInvisible(raw);
  const shaped = options.inline ? collapseWhitespace(clean) : clean;
  const escaped = escapeMrkdwn(neutralizeBroadcasts(defangText(shaped)));
  return options.max === undefined ? escaped : truncate(escaped, options.max);
}
