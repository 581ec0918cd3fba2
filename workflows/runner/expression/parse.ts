import jsep from "jsep";
import { InvalidWorkflowError, UnsupportedConstructError } from "../errors.js";
import { EXPRESSION_FUNCTIONS } from "../stdlib/functions.js";
import { makeDouble } from "../values.js";
import type { BinaryOp, Expr, UnaryOp } from "./ast.js";
import { MAP_EXPRESSION, type MapExpression } from "./map-literal.js";

// jsep is configured globally (its settings are static). Precedences follow the
// Workflows "order of operations" table: or < and < comparisons/in < +,- < *,/,//,%.
// Comparisons and `in` share one level there, unlike JavaScript.
const PRECEDENCE: Record<string, number> = {
  or: 1,
  OR: 1,
  and: 2,
  AND: 2,
  "==": 6,
  "!=": 6,
  "<": 6,
  "<=": 6,
  ">": 6,
  ">=": 6,
  in: 6,
  "+": 9,
  "-": 9,
  "*": 10,
  "/": 10,
  "//": 10,
  "%": 10,
};
for (const [op, precedence] of Object.entries(PRECEDENCE)) jsep.addBinaryOp(op, precedence);
jsep.addUnaryOp("not");
jsep.addUnaryOp("NOT");
for (const [name, value] of [
  ["True", true],
  ["TRUE", true],
  ["False", false],
  ["FALSE", false],
] as const) {
  jsep.addLiteral(name, value);
}

const BINARY_OPS: Record<string, BinaryOp> = {
  "+": "+",
  "-": "-",
  "*": "*",
  "/": "/",
  "//": "//",
  "%": "%",
  "==": "==",
  "!=": "!=",
  "<": "<",
  "<=": "<=",
  ">": ">",
  ">=": ">=",
  in: "in",
  and: "and",
  AND: "and",
  or: "or",
  OR: "or",
};

const UNARY_OPS: Record<string, UnaryOp> = { "-": "-", not: "not", NOT: "not" };

/** Blocking calls must be call steps; Workflows rejects them inside expressions. */
function isBlockingCall(name: string): boolean {
  return name.startsWith("http.") || name === "sys.sleep" || name === "sys.log";
}

/** Parses the text between `${` and `}`. */
export function parseExpression(source: string, path: string): Expr {
  let node: jsep.Expression;
  try {
    node = jsep(source);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new InvalidWorkflowError(path, `cannot parse expression ${JSON.stringify(source)}: ${reason}`);
  }
  return convert(node, path, source);
}

function convert(node: jsep.Expression, path: string, source: string): Expr {
  const unsupported = (what: string): never => {
    throw new UnsupportedConstructError(
      path,
      `${what} in expression ${JSON.stringify(source)} is not supported`,
    );
  };
  switch (node.type) {
    case "Literal": {
      const lit = node as jsep.Literal;
      if (typeof lit.value === "number") {
        return { kind: "literal", value: /[.eE]/.test(lit.raw) ? makeDouble(lit.value) : lit.value };
      }
      if (lit.value === null || typeof lit.value === "boolean" || typeof lit.value === "string") {
        return { kind: "literal", value: lit.value };
      }
      return unsupported("regular expression literal");
    }
    case "Identifier":
      return { kind: "variable", name: (node as jsep.Identifier).name };
    case "MemberExpression": {
      const member = node as jsep.MemberExpression;
      if (member.optional) return unsupported("optional chaining");
      const object = convert(member.object, path, source);
      if (member.computed) return { kind: "index", object, index: convert(member.property, path, source) };
      if (member.property.type !== "Identifier") return unsupported("property access");
      return { kind: "property", object, key: (member.property as jsep.Identifier).name };
    }
    case "ArrayExpression": {
      const items = (node as jsep.ArrayExpression).elements.map((item) =>
        item === null ? unsupported("array hole") : convert(item, path, source),
      );
      return { kind: "list", items };
    }
    case MAP_EXPRESSION: {
      const entries = (node as MapExpression).entries.map((entry) => ({
        key: convert(entry.key, path, source),
        value: convert(entry.value, path, source),
      }));
      return { kind: "map", entries };
    }
    case "UnaryExpression": {
      const unary = node as jsep.UnaryExpression;
      const op = UNARY_OPS[unary.operator];
      if (!op) return unsupported(`operator '${unary.operator}'`);
      return { kind: "unary", op, operand: convert(unary.argument, path, source) };
    }
    case "BinaryExpression": {
      const binary = node as jsep.BinaryExpression;
      const op = BINARY_OPS[binary.operator];
      if (!op) return unsupported(`operator '${binary.operator}'`);
      return {
        kind: "binary",
        op,
        left: convert(binary.left, path, source),
        right: convert(binary.right, path, source),
      };
    }
    case "CallExpression": {
      const call = node as jsep.CallExpression;
      const name = dottedName(call.callee);
      if (name === null) return unsupported("calling a computed value");
      if (isBlockingCall(name)) {
        throw new InvalidWorkflowError(
          path,
          `${name} is a blocking call and can only be used in a call step`,
        );
      }
      const spec = EXPRESSION_FUNCTIONS.get(name);
      if (!spec) return unsupported(`function '${name}'`);
      if (call.arguments.length < spec.required || call.arguments.length > spec.params.length) {
        throw new InvalidWorkflowError(
          path,
          `${name} takes ${spec.required}..${spec.params.length} arguments, got ${call.arguments.length}`,
        );
      }
      return { kind: "call", fn: name, args: call.arguments.map((a) => convert(a, path, source)) };
    }
    default:
      return unsupported(node.type);
  }
}

function dottedName(node: jsep.Expression): string | null {
  if (node.type === "Identifier") return (node as jsep.Identifier).name;
  if (node.type === "MemberExpression") {
    const member = node as jsep.MemberExpression;
    if (member.computed || member.property.type !== "Identifier") return null;
    const head = dottedName(member.object);
    return head === null ? null : `${head}.${(member.property as jsep.Identifier).name}`;
  }
  return null;
}

/** `a.b.c` as a dotted name, for references such as `${http.default_retry}`. */
export function exprDottedName(expr: Expr): string | null {
  if (expr.kind === "variable") return expr.name;
  if (expr.kind === "property") {
    const head = exprDottedName(expr.object);
    return head === null ? null : `${head}.${expr.key}`;
  }
  return null;
}
