import { skeleton } from "../unicode/skeleton.js";

/**
 * How tool names are compared everywhere a name decides what may run: the tools.allow /
 * tools.deny globs, an MCP server's `tools` and `readOnlyTools` lists, the toolbox's gates and
 * the approval binding (docs/decisions/0044-names-by-skeleton-and-grammar.md).
 *
 * - Allowing is exact: the same code points, case included, the whole name. No normalization
 *   runs first, so a name in another form or in full-width letters is another name.
 * - Looking alike is decided by Unicode's own data: the UTS #39 skeleton from confusables.txt
 *   (unicode/skeleton.ts); then NFKC (full-width and other compatibility forms are the letters
 *   they stand for), lower case, and the skeleton again, repeated until nothing changes. So
 *   `Iookup_host` (capital I, whose prototype is `l`), `ｌｏｏｋｕｐ_host` and `LOOKUP_HOST` all
 *   look like `lookup_host`. Every step runs on the skeleton, so names with one skeleton always
 *   share the key (the later steps only join names, never split them). Case is folded after
 *   the confusables mapping, never before it: folding first turns `I` into `i`, which looks like
 *   nothing else. A name that looks like an allowed one without being it is refused.
 */

/**
 * What a name looks like, for telling look-alikes apart; never shown, never used to allow.
 * Repeated because one pass is not always stable: a prototype can hold a precomposed letter
 * whose NFD base has a prototype of its own (U+048B → й̦, and и → ᴎ). Over every code point
 * the key settles within 3 rounds; the bound only guards against a future data file.
 */
export function toolNameSkeleton(name: string): string {
  let key = skeleton(name);
  for (let round = 0; round < 16; round++) {
    const next = skeleton(skeleton(key.normalize("NFKC")).toLowerCase());
    if (next === key) break;
    key = next;
  }
  return key;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/**
 * A glob against a name, each literal run of the pattern and the name first passed through
 * `fold`: `*` any run of characters, `?` one character, the whole name must match.
 */
function globMatches(pattern: string, name: string, fold: (text: string) => string): boolean {
  const source = pattern
    .split(/([*?])/)
    .map((part) => (part === "*" ? ".*" : part === "?" ? "." : escapeRegExp(fold(part))))
    .join("");
  return new RegExp(`^${source}$`, "su").test(fold(name));
}

/** A config pattern against a tool name, exactly: case-sensitive, code point for code point. */
export function toolNameMatches(pattern: string, name: string): boolean {
  return globMatches(pattern, name, (text) => text);
}

/** Whether any of the patterns matches the name exactly. */
export function anyToolNameMatches(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => toolNameMatches(p, name));
}

/**
 * The patterns the name looks like (same skeleton, case folded) without matching them exactly:
 * a name that would pass for an allowed one to a reader but is not it.
 */
export function patternsImitated(patterns: readonly string[], name: string): string[] {
  return patterns.filter((p) => !toolNameMatches(p, name) && globMatches(p, name, toolNameSkeleton));
}

/** Whether any of the patterns matches the name exactly or by look. For deny lists. */
export function anyToolNameResembles(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => globMatches(p, name, toolNameSkeleton));
}

/**
 * Names that look like another of the list without being it, each with the names it can be
 * mistaken for. Identical names are not twins of each other.
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
