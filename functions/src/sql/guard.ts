import { SqlRefusedError } from "../domain/errors.js";
import { checkAst, checkFunctionName } from "./ast-checks.js";
import { scanFromClauses } from "./from-scan.js";
import { isPunct, isWord, lexSql, type Token } from "./lexer.js";
import { checkFirstWord, checkForbiddenWords } from "./statement-keywords.js";
import { type ResolvedTable, resolveTable, type TableScope } from "./table-names.js";
import type { SqlTarget } from "./targets.js";

export const MAX_SQL_CHARS = 20_000;

export interface SqlGuardOptions extends TableScope {
  /** Largest LIMIT the statement may carry: added when missing, lowered when above. */
  maxRows: number;
  /** The engine the statement is rewritten for. */
  target: SqlTarget;
}

export interface GuardedSql {
  /** The statement to run: tables qualified for the target, comments dropped, LIMIT enforced. */
  sql: string;
  /** Allowlisted tables the statement reads, in order of first mention. */
  tables: string[];
  /** Named parameters (@name) the statement uses. */
  params: string[];
  /** The LIMIT of the statement that runs. */
  limit: number;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Words that bring a table into a query; never acceptable in text the parser skipped. */
const TABLE_WORDS = ["SELECT", "FROM", "JOIN", "UNNEST"];

function refKey(ref: ResolvedTable): string {
  if (ref.kind === "information_schema") return `information_schema:${ref.view}`;
  return `${ref.kind}:${ref.name.toLowerCase()}`;
}

function checkTokens(tokens: readonly Token[]): void {
  tokens.forEach((t, i) => {
    if (t.kind === "system_var") throw new SqlRefusedError(`system variable @@${t.value} is not allowed`);
    if (t.kind === "positional")
      throw new SqlRefusedError("positional ? parameters are not allowed; use @name");
    if (isPunct(t, "$")) throw new SqlRefusedError("$ parameters are not BigQuery SQL; use @name");
    if (t.kind === "word" && isPunct(tokens[i + 1], "(")) {
      const parts = [t.value];
      for (let k = i - 1; isPunct(tokens[k], ".") && tokens[k - 1]?.kind === "word"; k -= 2)
        parts.unshift(tokens[k - 1]!.value);
      checkFunctionName(parts);
    }
  });
}

/**
 * Refuses text after the last clause the parser understood unless it cannot read a table
 * (no SELECT/FROM/JOIN/UNNEST, no parentheses): in practice a trailing ORDER BY / LIMIT.
 */
function checkCoverage(tokens: readonly Token[], coveredTo: number): void {
  const tail = tokens.filter((t) => t.start >= coveredTo);
  const harmless = tail.every(
    (t) =>
      (t.kind === "word" && !isWord(t, ...TABLE_WORDS)) ||
      t.kind === "quoted" ||
      t.kind === "number" ||
      t.kind === "param" ||
      isPunct(t, ",") ||
      isPunct(t, ".") ||
      isPunct(t, ")"),
  );
  if (!harmless) {
    const text = tail.map((t) => t.text).join(" ");
    throw new SqlRefusedError(
      `the parser did not account for "${text.slice(0, 120)}"; refusing rather than guessing`,
    );
  }
}

function limitEdit(
  tokens: readonly Token[],
  maxRows: number,
): { edit?: Edit; append?: string; limit: number } {
  const n = tokens.length;
  const at = [n - 2, n - 4].find((k) => k >= 0 && isWord(tokens[k], "LIMIT") && tokens[k]!.depth === 0);
  const withOffset = at === n - 4;
  if (at === undefined || (withOffset && !isWord(tokens[n - 2], "OFFSET"))) {
    return { append: ` LIMIT ${maxRows}`, limit: maxRows };
  }
  const value = tokens[at + 1]!;
  if (value.kind === "number" && /^\d+$/.test(value.text) && Number(value.text) <= maxRows) {
    return { limit: Number(value.text) };
  }
  if (value.kind !== "number" && value.kind !== "param") throw new SqlRefusedError("LIMIT must be a number");
  return { edit: { start: value.start, end: value.end, text: String(maxRows) }, limit: maxRows };
}

/**
 * The SQL guard: accepts exactly one read-only SELECT (WITH and set operations included)
 * over the allowlisted tables, and returns it rewritten for the target engine with a
 * LIMIT no larger than maxRows. Everything else throws SqlRefusedError naming what was
 * refused. The parser (node-sql-parser, BigQuery grammar) decides structure; an
 * independent token scan must agree with it on every table.
 */
export function guardSql(sql: string, options: SqlGuardOptions): GuardedSql {
  if (sql.length > MAX_SQL_CHARS)
    throw new SqlRefusedError(`the statement is longer than ${MAX_SQL_CHARS} characters`);
  if (!Number.isInteger(options.maxRows) || options.maxRows < 1)
    throw new SqlRefusedError("maxRows must be a positive integer");
  const { tokens: all, comments } = lexSql(sql);
  let end = all.length;
  while (end > 0 && isPunct(all[end - 1], ";")) end -= 1;
  const tokens = all.slice(0, end);
  if (tokens.some((t) => isPunct(t, ";")))
    throw new SqlRefusedError("multiple statements are not allowed; send one SELECT");
  checkFirstWord(tokens);
  checkForbiddenWords(tokens);
  checkTokens(tokens);

  const facts = checkAst(sql, options);
  checkCoverage(tokens, facts.coveredTo);

  const scan = scanFromClauses(tokens);
  const resolved = scan.refs.map((ref) => ({ ref, table: resolveTable(ref.parts, options, facts.cteNames) }));
  const fromTokens = resolved.map((r) => refKey(r.table)).sort();
  const fromAst = facts.references.map(refKey).sort();
  if (fromTokens.join("|") !== fromAst.join("|")) {
    throw new SqlRefusedError(
      `the parser and the token scan disagree about the tables read (${fromAst.join(", ") || "none"} vs ${fromTokens.join(", ") || "none"}); refusing`,
    );
  }

  const { target } = options;
  const edits: Edit[] = comments.map((c) => ({ start: c.start, end: c.end, text: " " }));
  for (const { ref, table } of resolved) {
    if (table.kind === "table")
      edits.push({ start: ref.start, end: ref.end, text: target.table(table.name) });
    if (table.kind === "information_schema")
      edits.push({ start: ref.start, end: ref.end, text: target.informationSchema(table.view) });
  }
  const limit = limitEdit(tokens, options.maxRows);
  if (limit.edit) edits.push(limit.edit);
  const replaced = (t: Token) =>
    (limit.edit !== undefined && t.start === limit.edit.start) ||
    resolved.some(({ ref, table }) => table.kind !== "cte" && t.start >= ref.start && t.end <= ref.end);
  const params = new Set<string>();
  tokens.forEach((t, i) => {
    if (replaced(t)) return;
    if (t.kind === "word" && isPunct(tokens[i + 1], "(")) {
      const renamed = target.functionName(t.value);
      if (renamed !== undefined) edits.push({ start: t.start, end: t.end, text: renamed });
    }
    if (t.kind === "param") {
      params.add(t.value);
      edits.push({ start: t.start, end: t.end, text: target.param(t.value) });
    }
    if (t.kind === "string") {
      const text = target.stringLiteral(t.value);
      if (text !== undefined) edits.push({ start: t.start, end: t.end, text });
    }
    if (t.kind === "quoted") {
      const text = target.quotedIdentifier(t.value);
      if (text !== undefined) edits.push({ start: t.start, end: t.end, text });
    }
  });
  if (target.unnestColumnAlias) {
    for (const alias of scan.unnestAliases) {
      edits.push({
        start: alias.end,
        end: alias.end,
        text: `(${target.quotedIdentifier(alias.name) ?? alias.name})`,
      });
    }
  }

  const bodyEnd = tokens[tokens.length - 1]!.end;
  let out = "";
  let pos = 0;
  for (const edit of edits
    .filter((e) => e.start <= bodyEnd)
    .sort((a, b) => a.start - b.start || a.end - b.end)) {
    if (edit.start < pos) continue; // inside a span already replaced
    out += sql.slice(pos, edit.start) + edit.text;
    pos = edit.end;
  }
  out += sql.slice(pos, bodyEnd);
  out = out.trim() + (limit.append ?? "");

  const tables = [...new Set(resolved.flatMap(({ table }) => (table.kind === "table" ? [table.name] : [])))];
  return { sql: out, tables, params: [...params], limit: limit.limit };
}
