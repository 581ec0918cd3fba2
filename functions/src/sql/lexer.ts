import { SqlRefusedError } from "../domain/errors.js";

/**
 * A BigQuery (GoogleSQL) lexer. The parser decides what a statement means; the lexer lets
 * the guard rewrite it without re-printing it from the AST (node-sql-parser's printer is
 * not faithful for every construct), and gives a second, independent view of the text
 * for the checks that must not depend on one parser's leniency.
 */
export type TokenKind =
  | "word" // unquoted identifier or keyword
  | "quoted" // `backtick identifier`
  | "string" // any string or bytes literal
  | "number"
  | "param" // @name
  | "system_var" // @@name
  | "positional" // ?
  | "punct";

export interface Token {
  kind: TokenKind;
  /** The source text of the token. */
  text: string;
  /** Identifier name, decoded string value or parameter name; equals text for words and punctuation. */
  value: string;
  start: number;
  end: number;
  /** Paren depth before the token (a "(" is at the depth outside it). */
  depth: number;
}

export interface LexedSql {
  tokens: Token[];
  /** [start, end) of every comment, so a rewrite can drop them. */
  comments: Array<{ start: number; end: number }>;
}

const WORD_START = /[A-Za-z_]/;
const WORD_CHAR = /[A-Za-z0-9_]/;
const DIGIT = /[0-9]/;
const MULTI_PUNCT = ["<=", ">=", "<>", "!=", "||", "<<", ">>", "=>", "::", "->"];
const SINGLE_PUNCT = new Set([..."(),.;*+-/%=<>[]{}|&^~:!$"]);

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  b: "\b",
  f: "\f",
  v: "\v",
  a: "\x07",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "`": "`",
  "?": "?",
};

function decodeEscapes(body: string, raw: boolean): string {
  if (raw) return body;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) throw new SqlRefusedError("string literal ends with a lone backslash");
    const simple = ESCAPES[next];
    if (simple !== undefined) {
      out += simple;
      i += 1;
      continue;
    }
    const hex =
      next === "x" || next === "X"
        ? body.slice(i + 2, i + 4)
        : next === "u"
          ? body.slice(i + 2, i + 6)
          : next === "U"
            ? body.slice(i + 2, i + 10)
            : undefined;
    if (hex !== undefined && /^[0-9a-fA-F]+$/.test(hex)) {
      out += String.fromCodePoint(Number.parseInt(hex, 16));
      i += 1 + hex.length;
      continue;
    }
    if (/[0-7]/.test(next)) {
      const oct = body.slice(i + 1, i + 4);
      if (/^[0-7]{3}$/.test(oct)) {
        out += String.fromCharCode(Number.parseInt(oct, 8));
        i += 3;
        continue;
      }
    }
    throw new SqlRefusedError(`unsupported escape sequence \\${next} in a string literal`);
  }
  return out;
}

/** Reads a quoted literal starting at `pos` (the opening quote); returns its end and body. */
function readQuoted(sql: string, pos: number, _raw: boolean): { end: number; body: string } {
  const quote = sql[pos]!;
  const triple = sql.startsWith(quote.repeat(3), pos);
  const closer = triple ? quote.repeat(3) : quote;
  let i = pos + closer.length;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "\\") {
      i += 2;
      continue;
    }
    if (!triple && (ch === "\n" || ch === "\r")) break;
    if (sql.startsWith(closer, i)) {
      return { end: i + closer.length, body: sql.slice(pos + closer.length, i) };
    }
    i += 1;
  }
  throw new SqlRefusedError(`unterminated ${quote === "`" ? "quoted identifier" : "string literal"}`);
}

export function lexSql(sql: string): LexedSql {
  const tokens: Token[] = [];
  const comments: LexedSql["comments"] = [];
  let depth = 0;
  let i = 0;
  const push = (kind: TokenKind, start: number, end: number, value?: string) => {
    const text = sql.slice(start, end);
    tokens.push({ kind, text, value: value ?? text, start, end, depth });
  };

  while (i < sql.length) {
    const ch = sql[i]!;
    if (/\s/.test(ch)) {
      i += 1;
      continue;
    }
    if (sql.startsWith("--", i) || ch === "#") {
      const nl = sql.indexOf("\n", i);
      const end = nl === -1 ? sql.length : nl;
      comments.push({ start: i, end });
      i = end;
      continue;
    }
    if (sql.startsWith("/*", i)) {
      const close = sql.indexOf("*/", i + 2);
      if (close === -1) throw new SqlRefusedError("unterminated /* comment");
      comments.push({ start: i, end: close + 2 });
      i = close + 2;
      continue;
    }
    // String prefixes: r, b, rb, br (any case) directly before a quote.
    const prefix = /^(?:[rR][bB]?|[bB][rR]?)(?=['"])/.exec(sql.slice(i, i + 3));
    if (prefix || ch === "'" || ch === '"') {
      const prefixText = prefix?.[0] ?? "";
      const quoteAt = i + prefixText.length;
      const raw = /r/i.test(prefixText);
      const { end, body } = readQuoted(sql, quoteAt, raw);
      push("string", i, end, decodeEscapes(body, raw));
      i = end;
      continue;
    }
    if (ch === "`") {
      const { end, body } = readQuoted(sql, i, false);
      if (body.length === 0) throw new SqlRefusedError("empty quoted identifier");
      push("quoted", i, end, decodeEscapes(body, false));
      i = end;
      continue;
    }
    if (WORD_START.test(ch)) {
      let j = i + 1;
      while (j < sql.length && WORD_CHAR.test(sql[j]!)) j += 1;
      push("word", i, j);
      i = j;
      continue;
    }
    if (DIGIT.test(ch) || (ch === "." && DIGIT.test(sql[i + 1] ?? ""))) {
      const m = /^(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/.exec(sql.slice(i));
      const len = m?.[0].length ?? 1;
      push("number", i, i + len);
      i += len;
      continue;
    }
    if (ch === "@") {
      const system = sql[i + 1] === "@";
      const nameStart = i + (system ? 2 : 1);
      let j = nameStart;
      while (j < sql.length && WORD_CHAR.test(sql[j]!)) j += 1;
      if (j === nameStart) throw new SqlRefusedError("a lone @ is not a parameter");
      push(system ? "system_var" : "param", i, j, sql.slice(nameStart, j));
      i = j;
      continue;
    }
    if (ch === "?") {
      push("positional", i, i + 1);
      i += 1;
      continue;
    }
    const multi = MULTI_PUNCT.find((p) => sql.startsWith(p, i));
    if (multi) {
      push("punct", i, i + multi.length);
      i += multi.length;
      continue;
    }
    if (SINGLE_PUNCT.has(ch)) {
      if (ch === ")") depth -= 1;
      if (depth < 0) throw new SqlRefusedError("unbalanced parentheses");
      push("punct", i, i + 1);
      if (ch === "(") depth += 1;
      i += 1;
      continue;
    }
    throw new SqlRefusedError(`unexpected character ${JSON.stringify(ch)} at offset ${i}`);
  }
  if (depth !== 0) throw new SqlRefusedError("unbalanced parentheses");
  return { tokens, comments };
}

export function isWord(token: Token | undefined, ...words: string[]): boolean {
  if (token?.kind !== "word") return false;
  const upper = token.value.toUpperCase();
  return words.length === 0 || words.includes(upper);
}

export function isPunct(token: Token | undefined, text: string): boolean {
  return token?.kind === "punct" && token.text === text;
}
