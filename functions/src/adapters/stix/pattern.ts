/**
 * A parser for the part of the STIX 2.1 patterning language that threat feeds use for
 * indicators: comparisons joined by AND/OR inside [ … ], observation expressions joined
 * by AND/OR/FOLLOWEDBY, and qualifiers.
 *
 * What a lookup of one value can and cannot use (see observable.ts for the three-valued
 * judgement, breadth.ts for the patterns refused as too broad):
 * - matched: `=` and `IN` on ipv4-addr/ipv6-addr/domain-name/url/email-addr values,
 *   network-traffic src_ref/dst_ref values, domain-name resolves_to_refs values, user-account
 *   ids, file/artifact hashes under any algorithm name; an address value written as a range
 *   (`ipv4-addr:value = '198.51.100.0/24'`) and `ISSUBSET` as CIDR, IPv4 and IPv6; `LIKE`
 *   (at most 8 wildcards).
 * - an AND inside one [ … ] describes one object: it matches when a comparison the value can
 *   be judged by holds and none contradicts it (MISP's file object with three hashes matches
 *   each hash alone; its name and size are facts the lookup cannot check).
 * - parsed but never matching on their own: `MATCHES` (a regex from the feed would be a
 *   ReDoS risk), `ISSUPERSET`, ordering operators, `!=` and `NOT`, and an AND or FOLLOWEDBY
 *   between two observations (one looked-up value cannot be two observations).
 * - parsed and ignored: qualifiers (WITHIN, REPEATS, START/STOP) — they bound observations
 *   in time, and a lookup has none.
 * - skipped with a reason (StixThreatIntel.stats()): unparseable patterns, indicators whose
 *   pattern_type is not "stix" (YARA, Sigma, Snort), revoked ones, patterns too broad to be
 *   indicators, and versions dated in the future.
 */
export type PatternValue = string | number | boolean;

export interface Comparison {
  kind: "comparison";
  /** e.g. "ipv4-addr" */
  objectType: string;
  /** Property path with quotes removed, e.g. ["hashes", "SHA-256"] or ["value"]. */
  path: string[];
  negated: boolean;
  operator: string;
  values: PatternValue[];
}

export type PatternNode =
  | Comparison
  | { kind: "and" | "or"; children: PatternNode[] }
  /** Observations that must all be seen, in any order (AND) or in order (FOLLOWEDBY). */
  | { kind: "all_observations"; children: PatternNode[] };

export class PatternSyntaxError extends Error {}

interface Tok {
  type:
    | "lbracket"
    | "rbracket"
    | "lparen"
    | "rparen"
    | "comma"
    | "string"
    | "number"
    | "word"
    | "op"
    | "path";
  text: string;
}

const MAX_PATTERN_CHARS = 10_000;

function tokenize(pattern: string): Tok[] {
  if (pattern.length > MAX_PATTERN_CHARS) throw new PatternSyntaxError("pattern too long");
  const toks: Tok[] = [];
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (/\s/.test(ch)) {
      i += 1;
      continue;
    }
    const single: Record<string, Tok["type"]> = {
      "[": "lbracket",
      "]": "rbracket",
      "(": "lparen",
      ")": "rparen",
      ",": "comma",
    };
    if (single[ch]) {
      toks.push({ type: single[ch], text: ch });
      i += 1;
      continue;
    }
    // Typed string literals: t'…' (timestamp), h'…' (hex), b'…' (base64); and plain '…'.
    const typed = /^[thb]'/.test(pattern.slice(i, i + 2));
    if (ch === "'" || typed) {
      let j = i + (typed ? 2 : 1);
      let value = "";
      while (j < pattern.length && pattern[j] !== "'") {
        if (pattern[j] === "\\" && j + 1 < pattern.length) {
          value += pattern[j + 1];
          j += 2;
        } else {
          value += pattern[j];
          j += 1;
        }
      }
      if (j >= pattern.length) throw new PatternSyntaxError("unterminated string");
      toks.push({ type: "string", text: value });
      i = j + 1;
      continue;
    }
    const op = /^(?:!=|<=|>=|=|<|>)/.exec(pattern.slice(i));
    if (op) {
      toks.push({ type: "op", text: op[0] });
      i += op[0].length;
      continue;
    }
    const num = /^-?\d+(?:\.\d+)?/.exec(pattern.slice(i));
    if (num) {
      toks.push({ type: "number", text: num[0] });
      i += num[0].length;
      continue;
    }
    // An object path: type:prop('.'prop | '.'quoted | [index | *])*
    const path = /^[a-z0-9-]+:[A-Za-z0-9_-]+(?:\.(?:[A-Za-z0-9_-]+|'[^']*')|\[(?:\d+|\*)\])*/.exec(
      pattern.slice(i),
    );
    if (path) {
      toks.push({ type: "path", text: path[0] });
      i += path[0].length;
      continue;
    }
    const word = /^[A-Za-z_]+/.exec(pattern.slice(i));
    if (word) {
      toks.push({ type: "word", text: word[0].toUpperCase() });
      i += word[0].length;
      continue;
    }
    throw new PatternSyntaxError(`unexpected character ${JSON.stringify(ch)}`);
  }
  return toks;
}

function splitPath(text: string): { objectType: string; path: string[] } {
  const colon = text.indexOf(":");
  const rest = text.slice(colon + 1);
  const parts = [...rest.matchAll(/'([^']*)'|\[(\d+|\*)\]|([A-Za-z0-9_-]+)/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? "",
  );
  return { objectType: text.slice(0, colon), path: parts };
}

class Parser {
  private pos = 0;
  constructor(private readonly toks: Tok[]) {}

  private peek(): Tok | undefined {
    return this.toks[this.pos];
  }
  private next(): Tok {
    const tok = this.toks[this.pos];
    if (!tok) throw new PatternSyntaxError("unexpected end of pattern");
    this.pos += 1;
    return tok;
  }
  private expect(type: Tok["type"]): Tok {
    const tok = this.next();
    if (tok.type !== type) throw new PatternSyntaxError(`expected ${type}, found "${tok.text}"`);
    return tok;
  }
  private isWord(...words: string[]): boolean {
    const tok = this.peek();
    return tok?.type === "word" && words.includes(tok.text);
  }

  parse(): PatternNode {
    const node = this.observationOr();
    if (this.pos !== this.toks.length) throw new PatternSyntaxError(`unexpected "${this.peek()?.text}"`);
    return node;
  }

  private observationOr(): PatternNode {
    const children = [this.observationAnd()];
    while (this.isWord("OR")) {
      this.next();
      children.push(this.observationAnd());
    }
    return children.length === 1 ? children[0]! : { kind: "or", children };
  }

  private observationAnd(): PatternNode {
    const children = [this.observation()];
    while (this.isWord("AND", "FOLLOWEDBY")) {
      this.next();
      children.push(this.observation());
    }
    return children.length === 1 ? children[0]! : { kind: "all_observations", children };
  }

  private observation(): PatternNode {
    const tok = this.next();
    let node: PatternNode;
    if (tok.type === "lbracket") {
      node = this.comparisonOr();
      this.expect("rbracket");
    } else if (tok.type === "lparen") {
      node = this.observationOr();
      this.expect("rparen");
    } else {
      throw new PatternSyntaxError(`expected "[" or "(", found "${tok.text}"`);
    }
    this.qualifiers();
    return node;
  }

  /** WITHIN n SECONDS, REPEATS n TIMES, START t'…' STOP t'…': they bound observations in time, which a lookup has none of. */
  private qualifiers(): void {
    for (;;) {
      if (this.isWord("WITHIN")) {
        this.next();
        this.expect("number");
        if (!this.isWord("SECONDS")) throw new PatternSyntaxError("expected SECONDS");
        this.next();
      } else if (this.isWord("REPEATS")) {
        this.next();
        this.expect("number");
        if (!this.isWord("TIMES")) throw new PatternSyntaxError("expected TIMES");
        this.next();
      } else if (this.isWord("START")) {
        this.next();
        this.expect("string");
        if (!this.isWord("STOP")) throw new PatternSyntaxError("expected STOP");
        this.next();
        this.expect("string");
      } else {
        return;
      }
    }
  }

  private comparisonOr(): PatternNode {
    const children = [this.comparisonAnd()];
    while (this.isWord("OR")) {
      this.next();
      children.push(this.comparisonAnd());
    }
    return children.length === 1 ? children[0]! : { kind: "or", children };
  }

  private comparisonAnd(): PatternNode {
    const children = [this.comparisonUnit()];
    while (this.isWord("AND")) {
      this.next();
      children.push(this.comparisonUnit());
    }
    return children.length === 1 ? children[0]! : { kind: "and", children };
  }

  private comparisonUnit(): PatternNode {
    if (this.peek()?.type === "lparen") {
      this.next();
      const node = this.comparisonOr();
      this.expect("rparen");
      return node;
    }
    const path = this.expect("path");
    let negated = false;
    if (this.isWord("NOT")) {
      this.next();
      negated = true;
    }
    const opTok = this.next();
    const operator = opTok.type === "op" ? opTok.text : opTok.type === "word" ? opTok.text : "";
    if (
      !["=", "!=", "<", ">", "<=", ">=", "IN", "LIKE", "MATCHES", "ISSUBSET", "ISSUPERSET"].includes(operator)
    ) {
      throw new PatternSyntaxError(`unknown operator "${opTok.text}"`);
    }
    const values = operator === "IN" ? this.valueList() : [this.value()];
    return { kind: "comparison", ...splitPath(path.text), negated, operator, values };
  }

  private valueList(): PatternValue[] {
    this.expect("lparen");
    const values = [this.value()];
    while (this.peek()?.type === "comma") {
      this.next();
      values.push(this.value());
    }
    this.expect("rparen");
    return values;
  }

  private value(): PatternValue {
    const tok = this.next();
    if (tok.type === "string") return tok.text;
    if (tok.type === "number") return Number(tok.text);
    if (tok.type === "word" && (tok.text === "TRUE" || tok.text === "FALSE")) return tok.text === "TRUE";
    throw new PatternSyntaxError(`expected a value, found "${tok.text}"`);
  }
}

export function parsePattern(pattern: string): PatternNode {
  return new Parser(tokenize(pattern)).parse();
}

/** Every comparison in the pattern, for indexing. */
export function comparisonsOf(node: PatternNode): Comparison[] {
  return node.kind === "comparison" ? [node] : node.children.flatMap(comparisonsOf);
}
