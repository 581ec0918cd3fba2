/**
 * The one sanitizer for characters a reader cannot see, used wherever untrusted text (finding
 * fields, log rows, intel, model output, analyst text) is shown to a person: Slack
 * (notify/escape.ts), the terminal (cli/terminal-text.ts) and the web console
 * (console/views.ts). Invisible characters are removed, since they only serve to split or hide
 * tokens; direction controls are made visible as a marker, since a reversed file name (the
 * U+202E trick) is itself evidence an analyst should see; control characters (C0 but tab and
 * newline, DEL, C1) are removed, a tab becomes a space, CR LF and CR become LF.
 */

// Soft hyphen, combining grapheme joiner, Hangul and Khmer fillers, Mongolian free variation
// selectors and vowel separator, zero-width space/joiners, word joiner and invisible
// operators, BOM, interlinear annotation marks, invisible musical formatting, and the Unicode
// tag block (U+E0000–E007F, which can smuggle a hidden ASCII copy of a text).
const INVISIBLE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is removed on its own, joined or not
  /[\u00AD\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200D\u2060-\u2065\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}]/gu;
// Arabic letter mark, LRM/RLM, embeddings, overrides (U+202A–202E) and isolates (U+2066–2069).
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x0a && code !== 0x09) || (code >= 0x7f && code <= 0x9f);
}

/** How a direction control is shown: `⟦U+202E⟧`. */
export function bidiMarker(ch: string): string {
  return `⟦U+${ch.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0")}⟧`;
}

/** Untrusted text with invisible and control characters removed and direction controls shown. */
export function visibleText(raw: string): string {
  const text = raw.replace(/\r\n?/g, "\n").replace(INVISIBLE, "").replace(BIDI, bidiMarker);
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code === 0x09) out += " ";
    else if (!isControl(code)) out += ch;
  }
  return out;
}
