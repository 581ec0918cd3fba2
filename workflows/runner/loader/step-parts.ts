import { InvalidWorkflowError, UnsupportedConstructError } from "../errors.js";
import { parseExpression } from "../expression/parse.js";
import { compileTemplate } from "../expression/template.js";
import { CALL_SIGNATURES } from "../stdlib/signatures.js";
import type { WfMap, WfValue } from "../values.js";
import type { Assignment, CallStep, LValue, NextTarget } from "./ast.js";
import { expectList, expectName, expectString, singleEntry } from "./shape.js";

// The parts of a step that hold no other steps; the recursive part of the grammar is steps.ts.

export interface ParseContext {
  /** Names of all subworkflows in the file, so call steps can be resolved while parsing. */
  readonly subworkflows: ReadonlySet<string>;
}

export function parseNext(raw: WfValue, path: string): NextTarget {
  const target = expectString(raw, path, "next");
  if (target === "end" || target === "break" || target === "continue") return { kind: target };
  return { kind: "step", name: target };
}

export function parseAssignments(raw: WfValue, path: string): Assignment[] {
  return expectList(raw, path, "assign").map((entry, i) => {
    const at = `${path}[${i}]`;
    const [target, value] = singleEntry(entry, at, "an assignment");
    return { target: parseLValue(target, at), value: compileTemplate(value, `${at}.${target}`), path: at };
  });
}

/** Assignment targets are written in expression syntax: `a`, `a.b`, `a["k"]`, `a[i + 1]`. */
export function parseLValue(text: string, path: string): LValue {
  const steps: LValue["path"] = [];
  let expr = parseExpression(text, path);
  for (;;) {
    if (expr.kind === "variable") return { root: expr.name, path: steps.reverse() };
    if (expr.kind === "property") {
      steps.push({ kind: "key", key: expr.key });
      expr = expr.object;
    } else if (expr.kind === "index") {
      steps.push({ kind: "index", expr: expr.index });
      expr = expr.object;
    } else {
      throw new InvalidWorkflowError(
        path,
        `${JSON.stringify(text)} is not an assignable variable or element`,
      );
    }
  }
}

export function parseCall(
  base: Pick<CallStep, "name" | "path" | "next">,
  body: WfMap,
  path: string,
  ctx: ParseContext,
): CallStep {
  const target = expectString(body.get("call") ?? null, `${path}.call`, "call");
  const rawArgs = body.get("args");
  if (rawArgs !== undefined && !(rawArgs instanceof Map)) {
    throw new UnsupportedConstructError(
      `${path}.args`,
      "positional (list) args are not supported; use named args",
    );
  }
  const args = [...(rawArgs ?? new Map<string, WfValue>())].map(([name, value]) => ({
    name,
    value: compileTemplate(value, `${path}.args.${name}`),
  }));
  const result = body.has("result")
    ? expectName(body.get("result") ?? null, `${path}.result`, "result")
    : undefined;
  const call: CallStep = {
    ...base,
    kind: "call",
    target: resolveCallTarget(target, `${path}.call`, ctx),
    args,
    ...(result ? { result } : {}),
  };
  if (call.target.kind === "builtin") checkBuiltinArgs(call.target.name, args, path);
  return call;
}

function resolveCallTarget(target: string, path: string, ctx: ParseContext): CallStep["target"] {
  if (ctx.subworkflows.has(target)) return { kind: "subworkflow", name: target };
  if (CALL_SIGNATURES.has(target)) return { kind: "builtin", name: target };
  if (target.startsWith("googleapis.")) {
    throw new UnsupportedConstructError(
      path,
      `connector call '${target}' is not supported by the local runner`,
    );
  }
  if (target.includes(".")) {
    throw new UnsupportedConstructError(
      path,
      `call target '${target}' is not implemented by the local runner`,
    );
  }
  throw new InvalidWorkflowError(
    path,
    `'${target}' is neither a subworkflow nor a standard library function`,
  );
}

function checkBuiltinArgs(name: string, args: { name: string }[], path: string): void {
  const signature = CALL_SIGNATURES.get(name);
  if (!signature) return;
  const given = new Set(args.map((a) => a.name));
  for (const arg of given) {
    if (!signature.params.includes(arg)) {
      throw new UnsupportedConstructError(
        `${path}.args.${arg}`,
        `${name} argument '${arg}' is not supported`,
      );
    }
  }
  for (const requiredArg of signature.required) {
    if (!given.has(requiredArg))
      throw new InvalidWorkflowError(`${path}.args`, `${name} requires '${requiredArg}'`);
  }
  if (name === "sys.log") {
    const payloads = ["data", "text", "json"].filter((k) => given.has(k));
    if (payloads.length !== 1) {
      throw new InvalidWorkflowError(`${path}.args`, "sys.log needs exactly one of data, text or json");
    }
  }
}
