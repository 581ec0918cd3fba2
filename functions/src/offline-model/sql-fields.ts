import { scanFromClauses } from "../sql/from-scan.js";
import { isPunct, isWord, lexSql, type Token } from "../sql/lexer.js";

/** The tables a query reads and the columns (dotted paths) its WHERE clauses filter on. */
export interface FilteredFields {
  tables: string[];
  fields: string[];
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
  }
  return { tables, fields: unique(fields) };
}

function isClauseWord(token: Token): boolean {
  return isWord(token, ...CLAUSE_ENDS);
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((v) => v !== ""))];
}
