import { SqlRefusedError } from "../domain/errors.js";
import type { Token } from "./lexer.js";

/** Statement keywords grouped by why they are refused; the reason names the group. */
const STATEMENT_GROUPS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["data modification (DML)", ["INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "UPSERT", "REPLACE"]],
  [
    "schema or permission change (DDL/DCL)",
    ["CREATE", "DROP", "ALTER", "UNDROP", "RENAME", "COMMENT", "GRANT", "REVOKE"],
  ],
  [
    "scripting",
    [
      "DECLARE",
      "SET",
      "BEGIN",
      "COMMIT",
      "ROLLBACK",
      "CALL",
      "EXECUTE",
      "IMMEDIATE",
      "IF",
      "LOOP",
      "WHILE",
      "REPEAT",
      "FOR",
      "LEAVE",
      "BREAK",
      "ITERATE",
      "RETURN",
      "RAISE",
      "ASSERT",
      "PREPARE",
      "DEALLOCATE",
    ],
  ],
  ["data export or load", ["EXPORT", "LOAD", "IMPORT", "COPY"]],
  [
    "engine administration",
    [
      "ATTACH",
      "DETACH",
      "INSTALL",
      "PRAGMA",
      "VACUUM",
      "CHECKPOINT",
      "FORCE",
      "USE",
      "RESET",
      "DESCRIBE",
      "SHOW",
      "SUMMARIZE",
      "EXPLAIN",
      "ANALYZE",
    ],
  ],
];

const GROUP_OF = new Map<string, string>(
  STATEMENT_GROUPS.flatMap(([group, words]) => words.map((w): [string, string] => [w, group])),
);

/**
 * Words that have no business anywhere in a read-only query, even nested. Function names
 * that share a spelling (IF, REPEAT, REPLACE) and clause words (FOR SYSTEM_TIME) are left
 * out so legitimate queries pass; they are still refused as the first word.
 */
const FORBIDDEN_ANYWHERE = new Set([
  "INSERT",
  "UPDATE",
  "DELETE",
  "MERGE",
  "TRUNCATE",
  "CREATE",
  "DROP",
  "ALTER",
  "GRANT",
  "REVOKE",
  "DECLARE",
  "EXECUTE",
  "IMMEDIATE",
  "CALL",
  "EXPORT",
  "ATTACH",
  "DETACH",
  "COPY",
  "INSTALL",
  "PRAGMA",
  "LOAD",
  "BEGIN",
  "COMMIT",
  "ROLLBACK",
  "SET",
  "VACUUM",
  "CHECKPOINT",
]);

/** Refuses any statement that does not open like a query. */
export function checkFirstWord(tokens: readonly Token[]): void {
  const first = tokens[0];
  if (!first) throw new SqlRefusedError("the statement is empty");
  if (first.kind === "punct" && first.text === "(") return;
  if (first.kind === "word") {
    const word = first.value.toUpperCase();
    if (word === "SELECT" || word === "WITH") return;
    const group = GROUP_OF.get(word);
    if (group)
      throw new SqlRefusedError(`${word} statements are not allowed (${group}); send one read-only SELECT`);
    if (word === "FROM")
      throw new SqlRefusedError("FROM-first (DuckDB) syntax is not allowed; write SELECT … FROM …");
  }
  throw new SqlRefusedError(
    `only a read-only SELECT or WITH … SELECT is allowed, not a statement starting with "${first.text}"`,
  );
}

/** Refuses forbidden keywords hidden inside an otherwise select-shaped statement. */
export function checkForbiddenWords(tokens: readonly Token[]): void {
  tokens.forEach((token, i) => {
    if (token.kind !== "word") return;
    const word = token.value.toUpperCase();
    if (!FORBIDDEN_ANYWHERE.has(word)) return;
    // A struct field such as payload.set is data, not a keyword.
    const prev = tokens[i - 1];
    if (prev?.kind === "punct" && prev.text === ".") return;
    throw new SqlRefusedError(
      `the keyword ${word} is not allowed in a read-only query (${GROUP_OF.get(word) ?? "not a query"})`,
    );
  });
}
