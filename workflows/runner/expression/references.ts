import type { Expr } from "./ast.js";
import type { Template } from "./template.js";

/** Names of the variables an expression reads (function names are not variables). */
export function exprVariables(expr: Expr, into: Set<string> = new Set()): Set<string> {
  switch (expr.kind) {
    case "literal":
      break;
    case "variable":
      into.add(expr.name);
      break;
    case "property":
      exprVariables(expr.object, into);
      break;
    case "index":
      exprVariables(expr.object, into);
      exprVariables(expr.index, into);
      break;
    case "list":
      for (const item of expr.items) exprVariables(item, into);
      break;
    case "map":
      for (const entry of expr.entries) {
        exprVariables(entry.key, into);
        exprVariables(entry.value, into);
      }
      break;
    case "unary":
      exprVariables(expr.operand, into);
      break;
    case "binary":
      exprVariables(expr.left, into);
      exprVariables(expr.right, into);
      break;
    case "call":
      for (const arg of expr.args) exprVariables(arg, into);
      break;
  }
  return into;
}

/** Names of the variables a YAML value with `${...}` parts reads. */
export function templateVariables(template: Template, into: Set<string> = new Set()): Set<string> {
  switch (template.kind) {
    case "constant":
      break;
    case "expression":
      exprVariables(template.expr, into);
      break;
    case "list":
      for (const item of template.items) templateVariables(item, into);
      break;
    case "map":
      for (const entry of template.entries) {
        templateVariables(entry.key, into);
        templateVariables(entry.value, into);
      }
      break;
  }
  return into;
}
