import { SqlRefusedError } from "../domain/errors.js";
import { isPunct, isWord, type Token } from "./lexer.js";

/** A table name as written in the source, with its span so it can be rewritten. */
export interface TableRefSpan {
  parts: string[];
  start: number;
  end: number;
}

/** The alias of an UNNEST in FROM; DuckDB needs it repeated as a column alias. */
export interface UnnestAlias {
  name: string;
  /** Source offset right after the alias. */
  end: number;
}

export interface FromScan {
  refs: TableRefSpan[];
  unnestAliases: UnnestAlias[];
}

/** Functions whose arguments use FROM without naming a table. */
const FROM_INSIDE_FUNCTIONS = new Set(["EXTRACT", "TRIM", "SUBSTRING", "SUBSTR", "POSITION", "OVERLAY"]);
/** Words that end a FROM list at its own paren depth. */
const CLAUSE_WORDS = [
  "WHERE",
  "GROUP",
  "HAVING",
  "QUALIFY",
  "WINDOW",
  "ORDER",
  "LIMIT",
  "UNION",
  "INTERSECT",
  "EXCEPT",
  "SELECT",
];
/** Words that cannot be an implicit alias after a FROM item. */
const NOT_ALIAS = [
  ...CLAUSE_WORDS,
  "ON",
  "USING",
  "JOIN",
  "INNER",
  "LEFT",
  "RIGHT",
  "FULL",
  "CROSS",
  "OUTER",
  "WITH",
  "FOR",
  "TABLESAMPLE",
  "AS",
];

function matchingClose(tokens: readonly Token[], open: number): number {
  const depth = tokens[open]!.depth;
  for (let k = open + 1; k < tokens.length; k++) {
    if (isPunct(tokens[k], ")") && tokens[k]!.depth === depth) return k;
  }
  throw new SqlRefusedError("unbalanced parentheses");
}

/**
 * Finds every table reference by reading the tokens after FROM, JOIN and commas in a FROM
 * list. It is deliberately independent of the parser: the guard compares both views and
 * refuses when they disagree, so a clause the parser skipped cannot smuggle a table in.
 */
export function scanFromClauses(tokens: readonly Token[]): FromScan {
  const refs: TableRefSpan[] = [];
  const unnestAliases: UnnestAlias[] = [];
  const parenFunctions: Array<string | undefined> = [];
  const fromListDepths: number[] = [];

  const readItem = (j: number): void => {
    const t = tokens[j];
    if (!t) throw new SqlRefusedError("FROM without a table");
    if (isPunct(t, "(")) {
      const next = tokens[j + 1];
      // A parenthesized join starts with a table, not with a query.
      if (!isWord(next, "SELECT", "WITH") && !isPunct(next, "(")) {
        fromListDepths.push(t.depth + 1);
        readItem(j + 1);
      } else if (isPunct(next, "(")) {
        readItem(j + 1);
      }
      return;
    }
    if (isWord(t, "UNNEST")) {
      if (!isPunct(tokens[j + 1], "(")) throw new SqlRefusedError("UNNEST without arguments");
      const close = matchingClose(tokens, j + 1);
      let aliasAt = close + 1;
      if (isWord(tokens[aliasAt], "AS")) aliasAt += 1;
      const alias = tokens[aliasAt];
      const isAlias =
        alias !== undefined &&
        (alias.kind === "quoted" || (alias.kind === "word" && !isWord(alias, ...NOT_ALIAS)));
      if (alias && isAlias && !isPunct(tokens[aliasAt + 1], "("))
        unnestAliases.push({ name: alias.value, end: alias.end });
      return;
    }
    if (t.kind === "string") {
      throw new SqlRefusedError(
        `a string (${t.text.slice(0, 80)}) cannot be a table: file and URL reads are not allowed`,
      );
    }
    if (t.kind !== "word" && t.kind !== "quoted") {
      throw new SqlRefusedError(`unexpected "${t.text}" where a table name belongs`);
    }
    const parts = [t.value];
    let last = j;
    while (
      isPunct(tokens[last + 1], ".") &&
      (tokens[last + 2]?.kind === "word" || tokens[last + 2]?.kind === "quoted")
    ) {
      parts.push(tokens[last + 2]!.value);
      last += 2;
    }
    if (isPunct(tokens[last + 1], "(")) {
      throw new SqlRefusedError(`table function ${parts.join(".")} is not allowed in FROM`);
    }
    refs.push({ parts, start: t.start, end: tokens[last]!.end });
  };

  tokens.forEach((t, i) => {
    if (isPunct(t, "(")) {
      const prev = tokens[i - 1];
      parenFunctions.push(prev?.kind === "word" ? prev.value.toUpperCase() : undefined);
      return;
    }
    if (isPunct(t, ")")) {
      parenFunctions.pop();
      while (fromListDepths.length > 0 && fromListDepths[fromListDepths.length - 1]! > t.depth)
        fromListDepths.pop();
      return;
    }
    const inFromList = fromListDepths[fromListDepths.length - 1] === t.depth;
    if (inFromList && isWord(t, ...CLAUSE_WORDS)) {
      fromListDepths.pop();
      return;
    }
    if (isWord(t, "FROM")) {
      const fn = parenFunctions[parenFunctions.length - 1];
      if (fn !== undefined && FROM_INSIDE_FUNCTIONS.has(fn)) return;
      // `a IS [NOT] DISTINCT FROM b` compares values.
      if (isWord(tokens[i - 1], "DISTINCT") && isWord(tokens[i - 2], "IS", "NOT")) return;
      fromListDepths.push(t.depth);
      readItem(i + 1);
      return;
    }
    if (isWord(t, "JOIN") || (inFromList && isPunct(t, ","))) readItem(i + 1);
  });
  return { refs, unnestAliases };
}
