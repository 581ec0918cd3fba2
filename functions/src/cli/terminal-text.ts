import { visibleText } from "../domain/visible-text.js";

/*
 * A terminal obeys escape sequences in what it prints: a finding's category or resource
 * name could set the window title (OSC 0/2), plant a hyperlink whose text lies about its
 * target (OSC 8), clear the screen or move the cursor over earlier lines (CSI), or hide
 * text (SGR 8). Whole sequences are removed first, so no parameter bytes are left behind
 * as litter; then the one sanitizer Slack and the console use too (domain/visible-text.ts) removes the remaining control
 * characters (C0, DEL, C1), invisible fillers, and makes bidi controls visible.
 */

// OSC, DCS, SOS, PM, APC: a string ended by BEL or ST (ESC \ or 0x9C), or by the end of
// the text when an attacker leaves it open.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these match terminal control sequences
const STRING_SEQUENCE = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)/g;
// CSI: ESC [ or 0x9B, parameter and intermediate bytes, one final byte.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these match terminal control sequences
const CSI_SEQUENCE = /(?:\x1b\[|\x9b)[\x20-\x3f]*[\x40-\x7e]?/g;
// Any other escape: ESC, optional intermediates, one final byte (ESC c resets the terminal).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these match terminal control sequences
const OTHER_ESCAPE = /\x1b[\x20-\x2f]*[\x30-\x7e]?/g;

/** Untrusted text made safe to print to a terminal, newlines kept. */
export function terminalText(raw: string): string {
  return visibleText(raw.replace(STRING_SEQUENCE, "").replace(CSI_SEQUENCE, "").replace(OTHER_ESCAPE, ""));
}

/** Untrusted text on one terminal line: sanitized, whitespace collapsed, cut to `max`. */
export function terminalLine(raw: string, max = 160): string {
  const flat = terminalText(raw).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
