import { readFileSync } from "node:fs";
import { fromRoot } from "../platform/paths.js";

/**
 * Unicode's confusables data (UTS #39 confusables.txt), vendored unchanged in functions/unicode
 * with its provenance. Each data line maps one code point to its prototype: the string of
 * exemplar characters it can be mistaken for (`I` → `l`, `m` → `rn`, Cyrillic `о` → `o`).
 */
export interface ConfusablesData {
  /** The release the file declares in its header, e.g. "17.0.0". */
  version: string;
  /** Source character → prototype. */
  prototypes: ReadonlyMap<string, string>;
}

const DATA_LINE = /^([0-9A-F]{4,6}) ;\t([0-9A-F]{4,6}(?: [0-9A-F]{4,6})*) ;\tMA\t#/;
const VERSION_LINE = /^# Version: (\d+\.\d+\.\d+)$/m;

const fromHex = (hex: string): string => String.fromCodePoint(Number.parseInt(hex, 16));

/** Reads the file's text; a line that is neither a comment, blank nor a mapping is an error. */
export function parseConfusables(text: string): ConfusablesData {
  const version = VERSION_LINE.exec(text)?.[1];
  if (!version) throw new Error("confusables.txt: no '# Version:' header");
  const prototypes = new Map<string, string>();
  for (const [index, raw] of text
    .replace(/^\uFEFF/, "")
    .split("\n")
    .entries()) {
    const line = raw.trimEnd();
    if (line === "" || line.startsWith("#")) continue;
    const match = DATA_LINE.exec(line);
    if (!match?.[1] || !match[2])
      throw new Error(`confusables.txt line ${index + 1} is not a mapping: ${line}`);
    prototypes.set(fromHex(match[1]), match[2].split(" ").map(fromHex).join(""));
  }
  return { version, prototypes };
}

let loaded: ConfusablesData | undefined;

/** The vendored file, parsed on first use (about 6,500 mappings) and kept. */
export function confusables(): ConfusablesData {
  loaded ??= parseConfusables(readFileSync(fromRoot("functions", "unicode", "confusables.txt"), "utf8"));
  return loaded;
}
