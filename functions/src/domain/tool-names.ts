import { createRequire } from "node:module";

/**
 * How tool names are compared everywhere a name decides what may run: the tools.allow /
 * tools.deny globs, an MCP server's `tools` and `readOnlyTools` lists, the toolbox's gates and
 * the approval binding. A name matches exactly: case-sensitive, the whole name, after Unicode
 * NFKC normalization (so the same name in another normalization form or in full-width forms is
 * the same name, and nothing else is). Case-insensitive matching let a server's `LOOKUP_HOST`,
 * an acting tool, pass as the read-only `lookup_host` (issue 27).
 */

/** The form tool names are compared in. */
export function canonicalToolName(name: string): string {
  return name.normalize("NFKC");
}

/**
 * A config pattern against a tool name: `*` any run of characters, `?` one character,
 * everything else literal and case-sensitive; the whole name must match.
 */
export function toolNameMatches(pattern: string, name: string): boolean {
  const source = [...canonicalToolName(pattern)]
    .map((ch) => (ch === "*" ? ".*" : ch === "?" ? "." : ch.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`, "u").test(canonicalToolName(name));
}

/** Whether any of the patterns matches the name. */
export function anyToolNameMatches(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => toolNameMatches(p, name));
}

// Loaded on first use: the package builds one large expression from Unicode's confusables
// table, which only a function that lists MCP tools needs.
const requireModule = createRequire(import.meta.url);
let unhomoglyph: ((text: string) => string) | undefined;

/**
 * What a name looks like, for telling look-alikes apart: NFKC, lower case, then Unicode's
 * confusables mapping (UTS #39 confusables.txt via the `unhomoglyph` package: `1` and `I` look
 * like `l`, `0` like `O`, Cyrillic `о` like `o`, `rn` like `m`), lower case again. Two names
 * with the same skeleton can be mistaken for each other by a person or a model reading them.
 */
export function toolNameSkeleton(name: string): string {
  unhomoglyph ??= requireModule("unhomoglyph") as (text: string) => string;
  return unhomoglyph(canonicalToolName(name).toLowerCase()).toLowerCase();
}

/**
 * Names that differ from another of the list only by case or look-alike characters, each with
 * the names it can be mistaken for. Identical names are not twins of each other.
 */
export function lookAlikeNames(names: readonly string[]): Map<string, string[]> {
  const bySkeleton = new Map<string, Set<string>>();
  for (const name of names) {
    const key = toolNameSkeleton(name);
    const group = bySkeleton.get(key) ?? new Set<string>();
    group.add(name);
    bySkeleton.set(key, group);
  }
  const twins = new Map<string, string[]>();
  for (const group of bySkeleton.values()) {
    if (group.size < 2) continue;
    for (const name of group)
      twins.set(
        name,
        [...group].filter((other) => other !== name),
      );
  }
  return twins;
}
