import { type FieldDef, LOG_TABLES } from "../sql/log-schema.js";
import { keyDeclaredKind, keyWords } from "./finding/finding-field-meaning.js";
import type { IndicatorGrammarKind } from "./finding/indicator-grammar.js";

/**
 * What a log row's column holds, read the way a finding's fields are (finding-field-meaning.ts):
 * a column holds an indicator of a kind when its own name declares the kind by its last word
 * (`callerIp`, `dest_ip`, `principalEmail`, `member`, `requestUrl`, `sha256`; the same
 * `keyDeclaredKind` sourceProperties keys are read by), or when the log schema declares it for
 * a name that does not say it (sql/log-schema.ts: Cloud DNS's `queryName` is a domain). A
 * runbook's alias is the same column by its words (`query_name` is `queryName`). Every other
 * column is context or free text: nothing in it is declared an indicator.
 */

/** Schema declarations by the column's words joined (`queryName` and `query_name` → "queryname"). */
const SCHEMA_KINDS: ReadonlyMap<string, IndicatorGrammarKind> = (() => {
  const out = new Map<string, IndicatorGrammarKind>();
  const visit = (fields: readonly FieldDef[]) => {
    for (const f of fields) {
      if (f.indicator) out.set(keyWords(f.name).join(""), f.indicator);
      if (typeof f.type !== "string") visit(f.type);
    }
  };
  for (const table of LOG_TABLES) visit(table.fields);
  return out;
})();

/** The kind of indicator a column declares, "reference" for a link column, or undefined (context or free text). */
export function columnKind(key: string): IndicatorGrammarKind | "reference" | undefined {
  const byName = keyDeclaredKind(key);
  if (byName === "text") return undefined;
  return byName ?? SCHEMA_KINDS.get(keyWords(key).join(""));
}
