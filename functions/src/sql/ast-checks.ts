import bigQueryParser from "node-sql-parser/build/bigquery.js";
import { SqlRefusedError } from "../domain/errors.js";
import { type ResolvedTable, resolveTable, type TableScope } from "./table-names.js";

const { Parser } = bigQueryParser;
const parser = new Parser();

type Node = Record<string, unknown>;

/** AST node types of statements that must never appear, not even nested. */
const STATEMENT_TYPES = new Set([
  "insert",
  "replace",
  "update",
  "delete",
  "merge",
  "create",
  "drop",
  "alter",
  "truncate",
  "use",
  "declare",
  "grant",
  "revoke",
  "call",
  "exec",
  "load_data",
  "export",
]);

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Function-name prefixes that are part of GoogleSQL itself; any other qualifier is a UDF or ML call. */
const ALLOWED_FUNCTION_QUALIFIERS = new Set(["SAFE", "NET", "HLL_COUNT", "KLL_QUANTILES"]);

/** Functions that read outside the warehouse or reveal engine state, in either engine. */
const BLOCKED_FUNCTIONS = new Set([
  "EXTERNAL_QUERY",
  "EXTERNAL_OBJECT_TRANSFORM",
  "VECTOR_SEARCH",
  "APPENDS",
  "CHANGES",
  "GLOB",
  "PARQUET_SCAN",
  "PARQUET_METADATA",
  "PARQUET_SCHEMA",
  "PARQUET_FILE_METADATA",
  "PARQUET_KV_METADATA",
  "SNIFF_CSV",
  "ICEBERG_SCAN",
  "ICEBERG_METADATA",
  "DELTA_SCAN",
  "QUERY",
  "QUERY_TABLE",
  "JSON_EXECUTE_SERIALIZED_SQL",
  "GETENV",
  "CURRENT_SETTING",
  "GETVARIABLE",
  "WHICH_SECRET",
  "LOAD_AWS_CREDENTIALS",
  "HTTP_GET",
  "HTTP_POST",
]);
const BLOCKED_PREFIXES = ["READ_", "DUCKDB_", "PRAGMA_", "ST_READ"];

/** Refuses a function name (its parts as written) that may escape the warehouse. */
export function checkFunctionName(parts: readonly string[]): void {
  const shown = parts.join(".");
  if (parts.length > 1) {
    const qualifier = parts.slice(0, -1).map((p) => p.toUpperCase());
    if (!qualifier.every((q) => ALLOWED_FUNCTION_QUALIFIERS.has(q))) {
      throw new SqlRefusedError(`function ${shown} is not allowed (user-defined, ML or external functions)`);
    }
  }
  const name = (parts[parts.length - 1] ?? "").toUpperCase();
  if (BLOCKED_FUNCTIONS.has(name) || BLOCKED_PREFIXES.some((p) => name.startsWith(p))) {
    throw new SqlRefusedError(
      `function ${shown} is not allowed (it reads outside the log tables or inspects the engine)`,
    );
  }
}

function functionNameParts(node: Node): string[] {
  const name = node.name;
  if (typeof name === "string") return [name];
  if (!isNode(name)) return [];
  const schema = isNode(name.schema) ? str(name.schema.value) : undefined;
  const rest = Array.isArray(name.name) ? name.name.map((p) => (isNode(p) ? (str(p.value) ?? "") : "")) : [];
  return [...(schema !== undefined ? [schema] : []), ...rest];
}

/** Parts of a base-table FROM item as the parser split them. */
function tableParts(node: Node): string[] {
  const table = str(node.table) ?? "";
  const schema = str(node.schema);
  const db = str(node.db) ?? str(node.catalog);
  if (schema !== undefined) return [...(db !== undefined ? [db] : []), schema, table];
  return [...(db !== undefined ? [db] : []), table];
}

export interface AstFacts {
  /** Resolved references to allowlisted tables, CTEs and INFORMATION_SCHEMA views. */
  references: ResolvedTable[];
  /** Every CTE name of the statement, whatever its scope. */
  cteNames: Set<string>;
  params: Set<string>;
  /** The furthest source offset the parser accounted for. */
  coveredTo: number;
}

function parse(sql: string): unknown {
  try {
    return parser.astify(sql, { database: "BigQuery", parseOptions: { includeLocations: true } });
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0]!.slice(0, 200) : String(error);
    throw new SqlRefusedError(
      `the statement could not be parsed as BigQuery SQL (refusing rather than guessing): ${message}`,
    );
  }
}

function cteName(w: unknown): string | undefined {
  return isNode(w) && isNode(w.name) ? str(w.name.value) : undefined;
}

function collectCteNames(node: unknown, out: Set<string>): void {
  if (Array.isArray(node)) {
    for (const n of node) collectCteNames(n, out);
    return;
  }
  if (!isNode(node)) return;
  if (Array.isArray(node.with)) {
    for (const w of node.with) {
      const name = cteName(w);
      if (name) out.add(name);
    }
  }
  for (const [key, value] of Object.entries(node)) if (key !== "loc") collectCteNames(value, out);
}

function checkFromItem(
  item: unknown,
  scope: TableScope,
  facts: AstFacts,
  visibleCtes: ReadonlySet<string>,
): void {
  if (!isNode(item)) throw new SqlRefusedError("unsupported FROM clause");
  const type = str(item.type);
  if (type === "unnest" || type === "dual") return;
  // A subquery: walked like any other node.
  if (isNode(item.expr) && "ast" in item.expr) return;
  if (type === "expr") {
    const expr = item.expr;
    if (isNode(expr) && (expr.type === "function" || expr.type === "aggr_func")) {
      throw new SqlRefusedError(`table function ${functionNameParts(expr).join(".")} is not allowed in FROM`);
    }
    throw new SqlRefusedError("unsupported expression in FROM");
  }
  if (typeof item.table !== "string") throw new SqlRefusedError("unsupported FROM clause");
  const surround = isNode(item.surround) ? str(item.surround.table) : undefined;
  if (surround === "'" || surround === '"') {
    throw new SqlRefusedError(
      `a string ('${item.table}') cannot be a table: file and URL reads are not allowed`,
    );
  }
  facts.references.push(resolveTable(tableParts(item), scope, visibleCtes));
}

/**
 * Walks the tree with the CTE names visible at each node. A CTE is visible in the CTEs
 * after it in its WITH and in the query that WITH belongs to, never in its own body, in
 * earlier CTEs or outside that query: DuckDB resolves a name outside a CTE's scope to the
 * real table or view of that name (pg_settings, duckdb_tables, sqlite_master), so a name
 * the guard took for a CTE there would read the engine's catalog. Where the engines'
 * scoping might differ (a forward or self reference, WITH RECURSIVE), the narrower scope
 * is used and the name must then be an allowlisted table.
 */
function walk(node: unknown, scope: TableScope, facts: AstFacts, visible: ReadonlySet<string>): void {
  if (Array.isArray(node)) {
    for (const n of node) walk(n, scope, facts, visible);
    return;
  }
  if (!isNode(node)) return;
  const loc = node.loc;
  if (isNode(loc) && isNode(loc.end) && typeof loc.end.offset === "number") {
    facts.coveredTo = Math.max(facts.coveredTo, loc.end.offset);
  }
  const type = str(node.type);
  if (type !== undefined && STATEMENT_TYPES.has(type.toLowerCase())) {
    throw new SqlRefusedError(`${type.toUpperCase()} is not allowed inside a query`);
  }
  if (type === "function" || type === "aggr_func") checkFunctionName(functionNameParts(node));
  if (type === "param") {
    const name = str(node.value);
    if (name) facts.params.add(name);
  }
  const ctes = Array.isArray(node.with) ? node.with : [];
  const inner = new Set(visible);
  for (const cte of ctes) {
    walk(cte, scope, facts, inner);
    const name = cteName(cte);
    if (name !== undefined) inner.add(name);
  }
  // `(WITH a AS … SELECT …) UNION ALL SELECT … FROM a`: the parser hangs the second
  // branch under the parenthesized first one, but the WITH ends at the parenthesis.
  const closed = node.parentheses_symbol === true || node._parentheses === true;
  if (Array.isArray(node.from)) for (const item of node.from) checkFromItem(item, scope, facts, inner);
  for (const [key, value] of Object.entries(node)) {
    if (key === "loc" || key === "with") continue;
    walk(value, scope, facts, key === "_next" && closed ? visible : inner);
  }
}

/**
 * Parses with the BigQuery grammar and checks the tree: one SELECT statement, FROM items
 * only over allowlisted tables, CTEs, UNNEST or subqueries, and no dangerous functions.
 */
export function checkAst(sql: string, scope: TableScope): AstFacts {
  const ast = parse(sql);
  const statements = Array.isArray(ast) ? ast : [ast];
  if (statements.length !== 1)
    throw new SqlRefusedError(`exactly one statement is allowed, got ${statements.length}`);
  const statement = statements[0];
  if (!isNode(statement) || statement.type !== "select") {
    const type = isNode(statement) ? str(statement.type) : undefined;
    throw new SqlRefusedError(
      `only SELECT is allowed, got ${(type ?? "an unknown statement").toUpperCase()}`,
    );
  }
  const facts: AstFacts = { references: [], cteNames: new Set(), params: new Set(), coveredTo: 0 };
  collectCteNames(statement, facts.cteNames);
  for (const cte of facts.cteNames) {
    if (scope.allowedTables.some((t) => t.toLowerCase() === cte.toLowerCase())) {
      throw new SqlRefusedError(`the CTE name "${cte}" shadows a log table; pick another name`);
    }
  }
  walk(statement, scope, facts, new Set());
  return facts;
}
