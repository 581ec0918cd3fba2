/**
 * The one sanitizer for characters a reader cannot see, used wherever untrusted text (finding
 * fields, log rows, intel, model output, analyst text) is shown to a person — Slack
 * (notify/escape.ts), the terminal (cli/terminal-text.ts), the web console (console/views.ts)
 * — and by the console's search, which folds text the way the page shows it.
 *
 * What counts as unseen is decided by Unicode character properties, not by a list of code
 * points (decision 0043): whatever the Unicode version of the running V8 says is
 * Default_Ignorable_Code_Point, a format character (General_Category Cf), a variation selector
 * or a tag is removed, since it only serves to split, hide or smuggle text; a Bidi_Control is
 * made visible as a marker, since a reversed file name (the U+202E trick) is itself evidence;
 * every line and paragraph separator becomes the one newline ferret writes; other control
 * characters (Cc) are removed and a tab becomes a space; a lone surrogate becomes U+FFFD.
 */

/** Bidi_Control: embeddings, overrides, isolates, LRM/RLM/ALM. */
const DIRECTION = /\p{Bidi_Control}/gu;
/** Unseen by property: default-ignorable, format (tags included), variation selectors. */
const UNSEEN = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Variation_Selector}]/gu;
/** Every way text can break a line: CR LF, CR, VT, FF, NEL, and the Zl/Zp separators. */
const LINE_BREAK = /\r\n|[\r\v\f\u0085\p{Zl}\p{Zp}]/gu;
/** Control characters (Cc) but the newline; tabs are turned into spaces before this runs. */
const CONTROL = /(?![\n])\p{Cc}/gu;

const EMOJI_BEFORE = /\p{Emoji}$/u;
const PICTOGRAPH_BEFORE = /\p{Extended_Pictographic}\uFE0F?$/u;
const PICTOGRAPH_AFTER = /^\p{Extended_Pictographic}/u;

/**
 * The two unseen characters that belong to what a reader sees: an emoji presentation selector
 * (U+FE0E/FE0F) right after an emoji, and a zero-width joiner between two pictographs (👩‍💻).
 * Either carries at most one bit per visible emoji, so nothing can be hidden in them; every
 * other unseen character is removed.
 */
function keepInEmoji(ch: string, offset: number, text: string): string {
  const before = text.slice(Math.max(0, offset - 3), offset);
  if ((ch === "\uFE0F" || ch === "\uFE0E") && EMOJI_BEFORE.test(before)) return ch;
  if (
    ch === "\u200D" &&
    PICTOGRAPH_BEFORE.test(before) &&
    PICTOGRAPH_AFTER.test(text.slice(offset + 1, offset + 3))
  )
    return ch;
  return "";
}

/** The marker a direction control is shown as: `⟦U+202E⟧`. */
export function codePointMarker(ch: string): string {
  return `⟦U+${ch.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0")}⟧`;
}

/** Untrusted text as a reader sees it: unseen characters removed, direction controls shown. */
export function visibleText(raw: string): string {
  return raw
    .replace(/\p{Cs}/gu, "\uFFFD")
    .replace(LINE_BREAK, "\n")
    .replace(/\t/g, " ")
    .replace(DIRECTION, codePointMarker)
    .replace(UNSEEN, keepInEmoji)
    .replace(CONTROL, "");
}

/**
 * For text handed to a model inside a data fence: nothing is removed (the model should see
 * what was there), but every unseen code point is written as a JSON `\uXXXX` escape, so text
 * hidden in tags or variation selectors reaches the model as visible data, not as characters
 * a tokenizer may decode into a sentence.
 */
export function escapeUnseenForJson(json: string): string {
  return json.replace(
    new RegExp(`${UNSEEN.source}|${DIRECTION.source}|${CONTROL.source}|[\\p{Zl}\\p{Zp}]`, "gu"),
    (ch) =>
      [...ch]
        .flatMap((c) => {
          const code = c.codePointAt(0) ?? 0;
          return code > 0xffff ? [c.charCodeAt(0), c.charCodeAt(1)] : [code];
        })
        .map((u) => `\\u${u.toString(16).padStart(4, "0")}`)
        .join(""),
  );
}
