/**
 * The ListFindings filter as the SCC API reference documents it (ListFindingsRequest.filter,
 * v1 and v2): restrictions `<field> <operator> <value>`, each optionally negated by a leading
 * `-`, combined with AND and OR, with parentheses, and OR binding tighter than AND. Values are
 * string literals in quotes, integer literals or true/false; `=` compares, `:` is substring
 * matching for strings. The reference names no escape inside a literal, so a backslash in one
 * is refused rather than guessed at. The local stand-in (scc-stand-in.ts) evaluates filters
 * with this, so a filter that selects more than the caller meant selects more here too.
 */

type Value = string | number | boolean;
type Filter =
  | { kind: "and" | "or"; parts: Filter[] }
  | { kind: "restriction"; negated: boolean; field: string; operator: "=" | ":"; value: Value };

export class FilterSyntaxError extends Error {}

// The finding fields the stand-in can compare: the filter's snake_case name, the finding's JSON
// field and the operators the reference's "field and operator combinations" list allows.
const FIELDS: Record<string, { json: string; operators: readonly string[] }> = {
  name: { json: "name", operators: ["="] },
  parent: { json: "parent", operators: ["=", ":"] },
  resource_name: { json: "resourceName", operators: ["=", ":"] },
  state: { json: "state", operators: ["=", ":"] },
  category: { json: "category", operators: ["=", ":"] },
  external_uri: { json: "externalUri", operators: ["=", ":"] },
};

const TOKEN = /\s*(?:(\()|(\))|(AND|OR)(?![\w.])|(-)|([a-z_][a-z0-9_.]*)|(>=|<=|=|:|>|<)|("[^"]*")|(-?\d+))/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.trimEnd().length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) throw new FilterSyntaxError(`cannot read the filter at character ${at + 1}`);
    tokens.push(match.slice(1).find((group) => group !== undefined) as string);
  }
  return tokens;
}

/** Parses a filter; throws FilterSyntaxError where the documented syntax does not hold. */
export function parseFilter(text: string): Filter {
  const tokens = tokenize(text);
  let i = 0;
  const peek = () => tokens[i];
  const take = () => tokens[i++];
  // AND is the loosest, OR tighter, then a restriction or a parenthesized expression.
  const and = (): Filter => {
    const parts = [or()];
    while (peek() === "AND") {
      take();
      parts.push(or());
    }
    return parts.length === 1 ? (parts[0] as Filter) : { kind: "and", parts };
  };
  const or = (): Filter => {
    const parts = [term()];
    while (peek() === "OR") {
      take();
      parts.push(term());
    }
    return parts.length === 1 ? (parts[0] as Filter) : { kind: "or", parts };
  };
  const term = (): Filter => {
    if (peek() === "(") {
      take();
      const inner = and();
      if (take() !== ")") throw new FilterSyntaxError("a parenthesis is not closed");
      return inner;
    }
    const negated = peek() === "-";
    if (negated) take();
    const field = take();
    const operator = take();
    const literal = take();
    if (!field || !/^[a-z_]/.test(field))
      throw new FilterSyntaxError(`expected a field, found ${field ?? "the end"}`);
    if (operator !== "=" && operator !== ":") {
      if (operator && /^[<>]/.test(operator))
        throw new FilterSyntaxError(`${operator} is for integers and times`);
      throw new FilterSyntaxError(`expected = or : after ${field}`);
    }
    if (literal === undefined) throw new FilterSyntaxError(`expected a value after ${field} ${operator}`);
    return { kind: "restriction", negated, field, operator, value: literalValue(literal) };
  };
  const filter = and();
  if (i !== tokens.length) throw new FilterSyntaxError(`unexpected ${tokens[i]}`);
  return filter;
}

function literalValue(literal: string): Value {
  if (literal.startsWith('"')) {
    const text = literal.slice(1, -1);
    if (text.includes("\\")) throw new FilterSyntaxError("the documented string literal has no escapes");
    return text;
  }
  if (literal === "true" || literal === "false") return literal === "true";
  if (/^-?\d+$/.test(literal)) return Number(literal);
  throw new FilterSyntaxError(`${literal} is not a value: strings go in quotes`);
}

/** The fields a filter compares that the stand-in does not know. */
export function unknownFields(filter: Filter): string[] {
  if (filter.kind !== "restriction") return filter.parts.flatMap(unknownFields);
  return filter.field in FIELDS ? [] : [filter.field];
}

/** Restrictions that use an operator the reference does not list for their field. */
export function misusedOperators(filter: Filter): string[] {
  if (filter.kind !== "restriction") return filter.parts.flatMap(misusedOperators);
  const field = FIELDS[filter.field];
  return field && !field.operators.includes(filter.operator) ? [`${filter.field} ${filter.operator}`] : [];
}

/** Whether a finding (API JSON) passes the filter. */
export function matchesFilter(filter: Filter, finding: Readonly<Record<string, unknown>>): boolean {
  if (filter.kind !== "restriction")
    return filter.kind === "and"
      ? filter.parts.every((p) => matchesFilter(p, finding))
      : filter.parts.some((p) => matchesFilter(p, finding));
  const actual = finding[FIELDS[filter.field]?.json ?? filter.field];
  const text = typeof actual === "string" ? actual : actual === undefined ? "" : String(actual);
  const hit =
    filter.operator === "="
      ? text === String(filter.value)
      : typeof filter.value === "string" && text.includes(filter.value);
  return hit !== filter.negated;
}
