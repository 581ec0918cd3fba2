import { defangText } from "./defang.js";

/**
 * Every string from a finding, a log row, threat intel or the model is attacker-influenced.
 * Slack treats `&`, `<` and `>` as control characters in every text object (mentions such as
 * `<!channel>`, `<@U…>`, `<#C…>`, `<!subteam^…>`, links such as `<http://x|click>`), so they are
 * entity-escaped; zero-width and direction-control characters are removed or made visible
 * first so nothing can hide between a `<` and a `!` or disguise a file name.
 */

// Soft hyphen, combining grapheme joiner, Hangul and Khmer fillers, Mongolian free variation
// selectors and vowel separator, zero-width space/joiners, word joiner and invisible
// operators, BOM, interlinear annotation marks, invisible musical
// formatting, and the Unicode tag block (U+E0000–E007F, which can smuggle a hidden ASCII
// copy of a text): invisible in Slack and only useful to split or hide tokens.
const INVISIBLE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is removed on its own, joined or not
  /[\u00AD\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200D\u2060-\u2065\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}]/gu;
// Direction marks, embeddings, overrides and isolates: shown as a marker because a reversed
// file name (the U+202E trick) is itself evidence an analyst should see.
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
const BROADCAST = /@(?=(?:channel|here|everyone)\b)/gi;

function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x0a && code !== 0x09) || (code >= 0x7f && code <= 0x9f);
}

/** Removes invisible and control characters (ANSI escapes included) and marks bidi controls. */
export function stripInvisible(raw: string): string {
  const text = raw
    .replace(/\r\n?/g, "\n")
    .replace(INVISIBLE, "")
    .replace(BIDI, (c) => `⟦U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0")}⟧`);
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code === 0x09) out += " ";
    else if (!isControl(code)) out += ch;
  }
  return out;
}

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
export function oneLine(text: string): string {
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
  const shaped = options.inline ? oneLine(clean) : clean;
  const escaped = escapeMrkdwn(neutralizeBroadcasts(defangText(shaped)));
  return options.max === undefined ? escaped : truncate(escaped, options.max);
}
