import jsep from "jsep";

export const MAP_EXPRESSION = "MapExpression";

export interface MapExpression extends jsep.Expression {
  type: typeof MAP_EXPRESSION;
  entries: { key: jsep.Expression; value: jsep.Expression }[];
}

const OPEN = 123; // {
const CLOSE = 125; // }
const COMMA = 44;
const COLON = 58;

/**
 * jsep has no object literals; Workflows expressions accept map literals such as
 * `json.encode_to_string(x, {"indent": "  "})`. Keys are expressions (usually strings).
 */
jsep.hooks.add("gobble-token", function gobbleMap(env) {
  // Read through a function: TypeScript would otherwise narrow `this.code` after the first test.
  const code = (): number => this.code;
  if (code() !== OPEN) return;
  this.index++;
  const entries: MapExpression["entries"] = [];
  for (;;) {
    this.gobbleSpaces();
    if (code() === CLOSE) break;
    if (entries.length > 0) {
      if (code() !== COMMA) this.throwError("Expected , or } in map literal");
      this.index++;
      this.gobbleSpaces();
      if (code() === CLOSE) break;
    }
    const key = this.gobbleExpression();
    if (!key) this.throwError("Expected a key in map literal");
    this.gobbleSpaces();
    if (code() !== COLON) this.throwError("Expected : in map literal");
    this.index++;
    const value = this.gobbleExpression();
    if (!value) this.throwError("Expected a value in map literal");
    entries.push({ key, value });
  }
  this.index++;
  const node: MapExpression = { type: MAP_EXPRESSION, entries };
  env.node = node;
});
