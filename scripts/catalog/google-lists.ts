import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Reads the saved category lists of Google's pages (test/fixtures/real/google-docs/*.txt,
 * provenance in that directory's PROVENANCE.md). A list file is:
 *   # url: <page>            # retrieved: <date>     # copy: <how the text was read>
 *   # detector: <default detector>
 *   ## class: <THREAT|VULNERABILITY|…>
 *   ### detector: <detector for the rows that follow>
 *   <category as the page names it> [| <API name> [<API name>…] [| also: <other name>; <other name>…]]
 * "also:" gives the other names the page gives the same detection (a display name, the name
 * before a rename); they become aliases, as the API names do.
 * Used by generate-google-lists.ts (which writes functions/src/domain/catalog/google-lists.ts)
 * and by the catalog test, which fails when a saved page names a category the catalog lacks.
 */
export interface ListedCategory {
  category: string;
  apiNames: string[];
  alsoKnownAs: string[];
  detector: string;
  findingClass: string;
  page: string;
}

export interface SavedPage {
  file: string;
  url: string;
  retrieved: string;
  categories: ListedCategory[];
}

export const GOOGLE_DOCS_DIR = new URL("../../test/fixtures/real/google-docs/", import.meta.url);

export function parseSavedPage(file: string, text: string): SavedPage {
  let url = "";
  let retrieved = "";
  let detector = "";
  let findingClass = "";
  const categories: ListedCategory[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const meta = /^#\s*(url|retrieved|detector):\s*(.+)$/.exec(line);
    if (meta) {
      if (meta[1] === "url") url = meta[2] ?? "";
      else if (meta[1] === "retrieved") retrieved = meta[2] ?? "";
      else detector = meta[2] ?? "";
      continue;
    }
    const cls = /^##\s*class:\s*(\S+)/.exec(line);
    if (cls) {
      findingClass = cls[1] ?? "";
      continue;
    }
    const det = /^###\s*detector:\s*(\S+)/.exec(line);
    if (det) {
      detector = det[1] ?? "";
      continue;
    }
    if (line.startsWith("#")) continue;
    const [name = "", api = "", also = "", ...rest] = line.split("|").map((s) => s.trim());
    if (!url || !detector || !findingClass)
      throw new Error(`${file}: "${name}" before its url, detector or class`);
    if (rest.length > 0 || (also !== "" && !also.startsWith("also:")))
      throw new Error(`${file}: "${line}": a third column must start with "also:"`);
    categories.push({
      category: name,
      apiNames: api.split(/\s+/).filter(Boolean),
      alsoKnownAs: also
        .replace(/^also:/, "")
        .split(";")
        .map((s) => s.trim())
        .filter(Boolean),
      detector,
      findingClass,
      page: url,
    });
  }
  if (!url || !retrieved) throw new Error(`${file}: no url or retrieval date`);
  return { file, url, retrieved, categories };
}

export function readSavedPages(dir: URL = GOOGLE_DOCS_DIR): SavedPage[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".txt"))
    .sort()
    .map((f) => parseSavedPage(f, readFileSync(join(dir.pathname, f), "utf8")));
}
