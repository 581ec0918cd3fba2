import { InvalidWorkflowError, UnsupportedConstructError } from "../errors.js";
import { compileTemplate, expressionSource } from "../expression/template.js";
import type { WfMap, WfValue } from "../values.js";
import type { LoopSpec, ParallelStep, Step, StepList, SwitchCase, TryStep } from "./ast.js";
import { parseRetry } from "./retry.js";
import { checkKeys, expectList, expectMap, expectName, required, singleEntry } from "./shape.js";
import { type ParseContext, parseAssignments, parseCall, parseNext } from "./step-parts.js";

// The recursive part of the grammar: step lists, and the steps that hold step lists (switch,
// for, parallel, try). One module, since each of them parses the others.

const PRIMARY_KEYS = [
  "assign",
  "call",
  "switch",
  "steps",
  "for",
  "parallel",
  "try",
  "raise",
  "return",
] as const;

/** Keys that may accompany each kind of step besides `next`. */
const COMPANIONS: Record<(typeof PRIMARY_KEYS)[number], readonly string[]> = {
  assign: ["next"],
  call: ["args", "result", "next"],
  switch: ["next"],
  steps: ["next"],
  for: ["next"],
  parallel: ["next"],
  try: ["retry", "except", "next"],
  raise: [],
  return: [],
};

export function parseStepList(raw: WfValue, path: string, ctx: ParseContext): StepList {
  const entries = expectList(raw, path, "steps");
  const steps: Step[] = [];
  const byName = new Map<string, number>();
  entries.forEach((entry, i) => {
    const stepPath = `${path}[${i}]`;
    const [name, body] = singleEntry(entry, stepPath, "a step");
    if (byName.has(name)) throw new InvalidWorkflowError(stepPath, `duplicate step name '${name}'`);
    byName.set(name, i);
    steps.push(parseStepBody(name, expectMap(body, stepPath, `step '${name}'`), stepPath, ctx));
  });
  return { steps, byName };
}

/** Parses the body of one step; also used for the single-step form of `try`. */
export function parseStepBody(name: string, body: WfMap, path: string, ctx: ParseContext): Step {
  const primaries = PRIMARY_KEYS.filter((k) => body.has(k));
  if (primaries.length > 1) {
    throw new InvalidWorkflowError(path, `a step can contain only one of ${primaries.join(", ")}`);
  }
  const primary = primaries[0];
  const next = body.has("next") ? parseNext(body.get("next") ?? null, `${path}.next`) : undefined;
  const base = { name, path, ...(next ? { next } : {}) };
  if (!primary) {
    checkKeys(body, ["next"], path);
    if (!next) throw new InvalidWorkflowError(path, `step '${name}' does nothing`);
    return { ...base, kind: "next" };
  }
  checkKeys(body, [primary, ...COMPANIONS[primary]], path);
  const value = body.get(primary) ?? null;
  const at = `${path}.${primary}`;
  switch (primary) {
    case "assign":
      return { ...base, kind: "assign", assignments: parseAssignments(value, at) };
    case "call":
      return parseCall(base, body, path, ctx);
    case "switch":
      return { ...base, kind: "switch", cases: parseSwitch(value, at, ctx) };
    case "steps":
      return { ...base, kind: "steps", body: parseStepList(value, at, ctx) };
    case "for":
      return { ...base, kind: "for", loop: parseFor(value, at, ctx) };
    case "parallel":
      return { ...base, ...parseParallel(value, at, ctx) };
    case "try":
      return { ...base, ...parseTry(name, body, path, ctx) };
    case "raise":
      return { ...base, kind: "raise", value: compileTemplate(value, at) };
    case "return":
      return { ...base, kind: "return", value: compileTemplate(value, at) };
  }
}

export function parseSwitch(raw: WfValue, path: string, ctx: ParseContext): SwitchCase[] {
  return expectList(raw, path, "switch").map((entry, i) => {
    const at = `${path}[${i}]`;
    const body = expectMap(entry, at, "a switch condition");
    checkKeys(body, ["condition", "next", "steps", "return", "raise", "assign"], at);
    if (body.has("return") && body.has("raise")) {
      throw new InvalidWorkflowError(at, "a condition cannot both return and raise");
    }
    const get = (key: string): WfValue => body.get(key) ?? null;
    const next = body.has("next") ? parseNext(get("next"), `${at}.next`) : undefined;
    return {
      path: at,
      condition: compileTemplate(required(body, "condition", at), `${at}.condition`),
      assignments: body.has("assign") ? parseAssignments(get("assign"), `${at}.assign`) : [],
      ...(body.has("steps") ? { steps: parseStepList(get("steps"), `${at}.steps`, ctx) } : {}),
      ...(body.has("return") ? { returnValue: compileTemplate(get("return"), `${at}.return`) } : {}),
      ...(body.has("raise") ? { raiseValue: compileTemplate(get("raise"), `${at}.raise`) } : {}),
      ...(next ? { next } : {}),
    };
  });
}

export function parseFor(raw: WfValue, path: string, ctx: ParseContext): LoopSpec {
  const body = expectMap(raw, path, "for");
  checkKeys(body, ["value", "index", "in", "range", "steps"], path);
  if (body.has("in") === body.has("range")) {
    throw new InvalidWorkflowError(path, "a for loop needs exactly one of 'in' or 'range'");
  }
  const value = expectName(required(body, "value", path), `${path}.value`, "loop variable");
  const index = body.has("index")
    ? expectName(body.get("index") ?? null, `${path}.index`, "index variable")
    : undefined;
  return {
    value,
    ...(index ? { index } : {}),
    source: body.has("in")
      ? { kind: "in", list: compileTemplate(body.get("in") ?? null, `${path}.in`) }
      : parseRange(body.get("range") ?? null, `${path}.range`),
    body: parseStepList(required(body, "steps", path), `${path}.steps`, ctx),
  };
}

function parseRange(raw: WfValue, path: string): LoopSpec["source"] {
  // The for-loop reference documents both `range: [1, 9]` and `range: ${[a, b]}`.
  if (expressionSource(raw) !== null) return { kind: "range-expression", bounds: compileTemplate(raw, path) };
  const bounds = expectList(raw, path, "range");
  const [from, to] = bounds;
  if (bounds.length !== 2 || from === undefined || to === undefined) {
    throw new InvalidWorkflowError(path, "range must be a list of two numbers [start, end]");
  }
  return { kind: "range", from: compileTemplate(from, `${path}[0]`), to: compileTemplate(to, `${path}[1]`) };
}

export function parseParallel(
  raw: WfValue,
  path: string,
  ctx: ParseContext,
): Omit<ParallelStep, "name" | "path"> {
  const body = expectMap(raw, path, "parallel");
  checkKeys(body, ["shared", "concurrency_limit", "exception_policy", "branches", "for"], path);
  if (body.has("exception_policy") && body.get("exception_policy") !== "continueAll") {
    throw new UnsupportedConstructError(
      `${path}.exception_policy`,
      "only exception_policy: continueAll (the documented default) is supported",
    );
  }
  if (body.has("branches") === body.has("for")) {
    throw new InvalidWorkflowError(path, "a parallel step needs exactly one of 'branches' or 'for'");
  }
  const shared = body.has("shared")
    ? expectList(body.get("shared") ?? null, `${path}.shared`, "shared").map((v, i) =>
        expectName(v, `${path}.shared[${i}]`, "shared variable"),
      )
    : [];
  const limit = body.get("concurrency_limit");
  return {
    kind: "parallel",
    shared,
    ...(limit !== undefined ? { concurrencyLimit: compileTemplate(limit, `${path}.concurrency_limit`) } : {}),
    work: body.has("for")
      ? { kind: "for", loop: parseFor(body.get("for") ?? null, `${path}.for`, ctx) }
      : { kind: "branches", branches: parseBranches(body.get("branches") ?? null, `${path}.branches`, ctx) },
  };
}

function parseBranches(raw: WfValue, path: string, ctx: ParseContext): { name: string; body: StepList }[] {
  return expectList(raw, path, "branches").map((entry, i) => {
    const at = `${path}[${i}]`;
    const [name, value] = singleEntry(entry, at, "a branch");
    const branch = expectMap(value, at, `branch '${name}'`);
    checkKeys(branch, ["steps"], at);
    return { name, body: parseStepList(required(branch, "steps", at), `${at}.steps`, ctx) };
  });
}

export function parseTry(
  name: string,
  step: WfMap,
  path: string,
  ctx: ParseContext,
): Omit<TryStep, "name" | "path"> {
  if (!step.has("retry") && !step.has("except")) {
    throw new InvalidWorkflowError(path, "try needs a retry or an except block");
  }
  const tryPath = `${path}.try`;
  // `try:` holds either `steps:` or the body of a single step; both run as a one-step list.
  const inner = parseStepBody(name, expectMap(step.get("try") ?? null, tryPath, "try"), tryPath, ctx);
  if (inner.kind === "for") {
    // Known issue (https://cloud.google.com/workflows/docs/issues): deploying `try:` that
    // directly holds `for:` fails with "loop step name should not be empty".
    throw new InvalidWorkflowError(
      tryPath,
      "a for loop cannot be placed directly under try (loop step name should not be empty); wrap it in a named step under try: steps:",
    );
  }
  const result: Omit<TryStep, "name" | "path"> = {
    kind: "try",
    // The synthetic list has no names of its own so that jumps resolve in the enclosing list.
    body: { steps: [inner], byName: new Map() },
  };
  if (step.has("retry")) result.retry = parseRetry(step.get("retry") ?? null, `${path}.retry`, ctx);
  if (step.has("except")) {
    const exceptPath = `${path}.except`;
    const block = expectMap(step.get("except") ?? null, exceptPath, "except");
    checkKeys(block, ["as", "steps"], exceptPath);
    const as = block.has("as")
      ? expectName(block.get("as") ?? null, `${exceptPath}.as`, "except variable")
      : undefined;
    result.except = {
      ...(as ? { as } : {}),
      body: parseStepList(required(block, "steps", exceptPath), `${exceptPath}.steps`, ctx),
    };
  }
  return result;
}
