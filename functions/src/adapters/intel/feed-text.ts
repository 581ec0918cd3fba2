// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/g;

/**
 * Text from threat feeds (pulse names, tags, descriptions) is written by whoever published
 * the pulse, attacker included. It is kept printable and bounded, and only ever shown to
 * the model as quoted data.
 */
export function quoteFeedText(text: string | undefined, max: number): string | undefined {
  if (!text) return undefined;
  const clean = text.replace(CONTROL, " ").replace(/\s+/g, " ").trim();
  if (clean.length === 0) return undefined;
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

/** Cleaned, de-duplicated (case-insensitively, first spelling kept), at most `limit` entries. */
export function uniqueCapped(values: Iterable<string | undefined>, limit: number, maxChars = 200): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const value of values) {
    const clean = quoteFeedText(value, maxChars);
    if (clean === undefined || seen.has(clean.toLowerCase())) continue;
    seen.add(clean.toLowerCase());
    out.push(clean);
    if (out.length >= limit) break;
  }
  return out;
}
