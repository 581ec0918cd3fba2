import type { WfValue } from "../values.js";

export type BinaryOp =
  | "+"
  | "-"
  | "*"
  | "/"
  | "//"
  | "%"
  | "=="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "in"
  | "and"
  | "or";

export type UnaryOp = "-" | "not";

/** The expression subset the runner understands, already validated at load time. */
export type Expr =
  | { kind: "literal"; value: WfValue }
  | { kind: "variable"; name: string }
  | { kind: "property"; object: Expr; key: string }
  | { kind: "index"; object: Expr; index: Expr }
  | { kind: "list"; items: Expr[] }
  | { kind: "map"; entries: { key: Expr; value: Expr }[] }
  | { kind: "unary"; op: UnaryOp; operand: Expr }
  | { kind: "binary"; op: BinaryOp; left: Expr; right: Expr }
  | { kind: "call"; fn: string; args: Expr[] };
