import { codePointMarker, visibleText } from "../domain/visible-text.js";
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
  /** For a plain_text object, which formats nothing: no code spans (see `inertMarkup`). */
  plain?: boolean;
}

/**
 * Whether mrkdwn could format a line (Slack's formatting reference,
 * https://docs.slack.dev/messaging/formatting-message-text/): bold, italic, strike and code need
 * a pair of their delimiter with the opening one not inside a word, an emoji needs a
 * `:shortcode:` (a time such as 10:30:00 is not one), and a quote needs `&gt;` (the escaped `>`)
 * opening the line. Deliberately wider than what Slack renders: a false alarm costs a code
 * span, a miss lets data dress up as ferret's own labels.
 */
export function markupCanAct(line: string): boolean {
  if (/^\s*&gt;/.test(line)) return true;
  for (const delimiter of ["*", "_", "~", "`"]) {
    const at = [...line.matchAll(new RegExp(`\\${delimiter}`, "g"))].map((m) => m.index);
    if (at.length >= 2 && at.some((i) => !/[\p{L}\p{N}]/u.test(line[i - 1] ?? ""))) return true;
  }
  for (const m of line.matchAll(/:([a-z0-9_+'-]+):/gi)) {
    const before = line[(m.index ?? 0) - 1] ?? "";
    if (!(/^\d+$/.test(m[1] ?? "") && /\d/.test(before))) return true;
  }
  return false;
}

/**
 * Untrusted text can never create formatting on a card: a line in which mrkdwn markup could act
 * is shown as inline code, where Slack applies no formatting, emoji or links. A backtick,
 * which would close the code span and has no escape in mrkdwn, is shown as its marker.
 */
export function inertMarkup(escaped: string): string {
  return escaped
    .split("\n")
    .map((line) => (markupCanAct(line) ? `\`${line.replace(/`/g, codePointMarker)}\`` : line))
    .join("\n");
}

/**
 * The whole pipeline for untrusted text shown in Slack: clean, defang, neutralize, escape, cut,
 * then make markup inert (the cut leaves room for the code spans).
 */
export function safeText(raw: string, options: SafeTextOptions = {}): string {
  const clean = stripInvisible(raw);
  const shaped = options.inline ? collapseWhitespace(clean) : clean;
  const escaped = escapeMrkdwn(neutralizeBroadcasts(defangText(shaped)));
  const shown = (budget: number | undefined) => {
    const cut = budget === undefined ? escaped : truncate(escaped, budget);
    return options.plain ? cut : inertMarkup(cut);
  };
  const max = options.max;
  if (max === undefined) return shown(undefined);
  let budget = max;
  let out = shown(budget);
  while (out.length > max && budget > 1) {
    budget = Math.max(1, budget - (out.length - max));
    out = shown(budget);
  }
  return out;
}
