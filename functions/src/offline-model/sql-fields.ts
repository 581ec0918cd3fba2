import type { FilterTest } from "../memory/fact.js";
import { scanFromClauses } from "../sql/from-scan.js";
import { isPunct, isWord, lexSql, type Token } from "../sql/lexer.js";

/** The tables a query reads and the columns (dotted paths) its WHERE clauses filter on. */
export interface FilteredFields {
  tables: string[];
  fields: string[];
  /** Each field's condition where its form could be read: the comparison, and a CAST around it. */
  filters: FieldFilter[];
}

export interface FieldFilter {
  field: string;
  test: FilterTest;
  cast?: "INT64" | "FLOAT64" | "TIMESTAMP";
}

const COMPARISONS: Record<string, FilterTest> = {
  "=": "equals",
  "!=": "not_equals",
  "<>": "not_equals",
  "<": "less_than",
  "<=": "less_than",
  ">": "greater_than",
  ">=": "greater_than",
};
/** A comparison read right to left (`TIMESTAMP '…' < timestamp`). */
const MIRRORED: Partial<Record<FilterTest, FilterTest>> = {
  less_than: "greater_than",
  greater_than: "less_than",
};
const CASTS = new Set(["INT64", "FLOAT64", "TIMESTAMP"]);

/** The form of the condition on the column spanning tokens[from..to]; undefined when unread. */
function conditionOn(
  tokens: readonly Token[],
  from: number,
  to: number,
): Omit<FieldFilter, "field"> | undefined {
  let before = from - 1;
  let after = to + 1;
  let cast: FieldFilter["cast"];
  const castType = tokens[after + 1]?.value.toUpperCase() ?? "";
  if (
    isPunct(tokens[before], "(") &&
    isWord(tokens[before - 1], "CAST", "SAFE_CAST") &&
    isWord(tokens[after], "AS") &&
    CASTS.has(castType) &&
    isPunct(tokens[after + 2], ")")
  ) {
    cast = castType as FieldFilter["cast"];
    before -= 2;
    after += 3;
  }
  const withCast = (test: FilterTest) => ({ test, ...(cast ? { cast } : {}) });
  const next = tokens[after];
  if (next?.kind === "punct" && COMPARISONS[next.value])
    return withCast(COMPARISONS[next.value] as FilterTest);
  if (isWord(next, "LIKE")) return withCast("like");
  if (isWord(next, "IN")) return withCast("in_list");
  if (isWord(next, "BETWEEN")) return withCast("between");
  if (isWord(next, "IS")) return withCast(isWord(tokens[after + 1], "NOT") ? "is_not_null" : "is_null");
  if (isPunct(tokens[before], "(") && isWord(tokens[before - 1], "REGEXP_CONTAINS"))
    return withCast("regexp_contains");
  const prev = tokens[before];
  const mirrored = prev?.kind === "punct" ? COMPARISONS[prev.value] : undefined;
  if (mirrored) return withCast(MIRRORED[mirrored] ?? mirrored);
  return undefined;
}

/** Words that can stand where a column could, but are not one. */
const NOT_COLUMNS = new Set(
  (
    "AND OR NOT IN IS NULL LIKE BETWEEN TRUE FALSE AS CAST SAFE_CAST INTERVAL DATE DATETIME TIME CASE WHEN " +
    "THEN ELSE END EXISTS SELECT FROM ANY SOME ALL ESCAPE UNNEST DISTINCT WHERE ON USING JOIN " +
    "INT64 STRING FLOAT64 BOOL NUMERIC BYTES DAY HOUR MINUTE SECOND WEEK MONTH YEAR"
  ).split(" "),
);
const CLAUSE_ENDS = [
  "GROUP",
  "ORDER",
  "LIMIT",
  "HAVING",
  "QUALIFY",
  "WINDOW",
  "UNION",
  "INTERSECT",
  "EXCEPT",
];

/**
 * A lexical reading, not a parse: enough for the offline introspector to say "this table
 * can be filtered on these fields", and it never throws (unreadable SQL gives undefined).
 */
export function filteredFields(sql: string): FilteredFields | undefined {
  let tokens: Token[];
  let refs: ReturnType<typeof scanFromClauses>;
  try {
    tokens = lexSql(sql).tokens;
    refs = scanFromClauses(tokens);
  } catch {
    return undefined;
  }
  const tables = unique(refs.refs.map((r) => r.parts.flatMap((p) => p.split(".")).at(-1) ?? ""));
  const aliases = new Set(refs.unnestAliases.map((a) => a.name.toLowerCase()));
  for (const ref of refs.refs) {
    let i = tokens.findIndex((t) => t.start >= ref.end);
    if (isWord(tokens[i], "AS")) i += 1;
    const alias = tokens[i];
    if (alias?.kind === "word" && !NOT_COLUMNS.has(alias.value.toUpperCase()) && !isClauseWord(alias)) {
      aliases.add(alias.value.toLowerCase());
    }
  }
  const fields: string[] = [];
  const filters: FieldFilter[] = [];
  let whereDepth: number | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (isWord(token, "WHERE")) {
      whereDepth = token.depth;
      continue;
    }
    if (whereDepth === undefined) continue;
    // A ")" at the WHERE's own depth closes a group inside it; one below closes its subquery.
    if (
      (isClauseWord(token) && token.depth <= whereDepth) ||
      (isPunct(token, ")") && token.depth < whereDepth)
    ) {
      whereDepth = undefined;
      continue;
    }
    if (token.kind !== "word" && token.kind !== "quoted") continue;
    const path = [token.value];
    const first = i;
    while (isPunct(tokens[i + 1], ".") && ["word", "quoted"].includes(tokens[i + 2]?.kind ?? "")) {
      path.push((tokens[i + 2] as Token).value);
      i += 2;
    }
    const next = tokens[i + 1];
    if (isPunct(next, "(")) continue; // a function name
    if (path.length === 1 && token.kind === "word" && NOT_COLUMNS.has(token.value.toUpperCase())) continue;
    if (path.length === 1 && next?.kind === "string") continue; // TIMESTAMP '…' and other typed literals
    if (path.length > 1 && aliases.has((path[0] as string).toLowerCase())) path.shift();
    fields.push(path.join("."));
    const condition = conditionOn(tokens, first, i);
    if (condition && !filters.some((f) => f.field === path.join(".")))
      filters.push({ field: path.join("."), ...condition });
  }
  return { tables, fields: unique(fields), filters };
}

function isClauseWord(token: Token): boolean {
  return isWord(token, ...CLAUSE_ENDS);
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((v) => v !== ""))];
}
