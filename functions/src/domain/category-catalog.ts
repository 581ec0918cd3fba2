import { z } from "zod";
import { CATALOG_ENTRIES } from "./catalog/entries.js";
import { type CatalogEntry, CatalogEntrySchema } from "./catalog/schema.js";

export type { CatalogEntry, Detector, PlaybookId } from "./catalog/schema.js";

/**
 * Category spellings differ between API versions, exports and hand-written findings
 * ("Malware: Bad Domain", "MALWARE_BAD_DOMAIN", a trailing "(Preview)"); the key ignores case,
 * punctuation and spacing. Nothing else is fuzzy: an unknown category has no entry.
 */
export function categoryKey(category: string): string {
  return category
    .toLowerCase()
    .replace(/\(?\bpreview\b\)?\s*$/, "")
    .replace(/[^a-z0-9]+/g, "");
}

function build(entries: readonly CatalogEntry[]): ReadonlyMap<string, CatalogEntry> {
  const parsed = z.array(CatalogEntrySchema).parse(entries);
  const byKey = new Map<string, CatalogEntry>();
  for (const entry of parsed) {
    const key = categoryKey(entry.category);
    // Two entries for one key would make routing depend on their order.
    if (byKey.has(key)) throw new Error(`category catalog: duplicate entry for "${entry.category}"`);
    byKey.set(key, entry);
  }
  return byKey;
}

const BY_KEY = build(CATALOG_ENTRIES);

/** Every catalogued category, in catalog order. */
export const CATEGORY_CATALOG: readonly CatalogEntry[] = [...BY_KEY.values()];

/** The catalog entry for a finding's category, or undefined when Google's documentation lists none ferret knows. */
export function catalogEntryFor(category: string): CatalogEntry | undefined {
  return BY_KEY.get(categoryKey(category));
}
