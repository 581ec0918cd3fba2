import { InvalidWorkflowError } from "../errors.js";
import { compileTemplate } from "../expression/template.js";
import { CALL_SIGNATURES } from "../stdlib/signatures.js";
import { isList, isMap, type WfValue } from "../values.js";
import type { Param, Subworkflow, WorkflowDefinition } from "./ast.js";
import { checkSubworkflowCalls } from "./check-calls.js";
import { checkJumps } from "./check-jumps.js";
import { checkStepNames } from "./check-names.js";
import { checkParallelLimits } from "./check-parallel-limits.js";
import { checkParallelWrites } from "./check-parallel-writes.js";
import { checkVariables } from "./check-variables.js";
import { checkKeys, expectList, expectMap, expectName, required, singleEntry } from "./shape.js";
import type { ParseContext } from "./step-parts.js";
import { parseStepList } from "./steps.js";
import { parseSource } from "./yaml.js";

export interface LoadOptions {
  /** Shown in errors about the file as a whole (YAML syntax, top-level shape). */
  sourceName?: string;
}

/** A parsed and validated workflow, ready for runWorkflow. */
export interface LoadedWorkflow {
  readonly definition: WorkflowDefinition;
}

export function loadWorkflow(yamlText: string, options: LoadOptions = {}): LoadedWorkflow {
  const sourceName = options.sourceName ?? "workflow";
  const root = parseSource(yamlText, sourceName);
  const definition = isList(root) ? implicitMain(root) : explicitForm(root, sourceName);
  for (const sub of [definition.main, ...definition.subworkflows.values()]) {
    checkStepNames(sub);
    checkJumps(sub.body);
    checkParallelWrites(sub);
    checkParallelLimits(sub.body);
    checkVariables(sub);
  }
  checkSubworkflowCalls(definition);
  return { definition };
}

/** A file that is just a list of steps is the main workflow without parameters. */
function implicitMain(steps: WfValue[]): WorkflowDefinition {
  const ctx: ParseContext = { subworkflows: new Set() };
  return {
    main: { name: "main", params: [], body: parseStepList(steps, "main.steps", ctx) },
    subworkflows: new Map(),
  };
}

function explicitForm(root: WfValue, sourceName: string): WorkflowDefinition {
  const top = expectMap(root, sourceName, "a workflow");
  if (!top.has("main"))
    throw new InvalidWorkflowError(sourceName, "a workflow with subworkflows needs a 'main' block");
  const names = [...top.keys()].filter((n) => n !== "main");
  for (const name of names) {
    expectName(name, name, "subworkflow name");
    if (CALL_SIGNATURES.has(name))
      throw new InvalidWorkflowError(name, "subworkflow name shadows a library function");
  }
  const ctx: ParseContext = { subworkflows: new Set(names) };
  const subworkflows = new Map<string, Subworkflow>();
  for (const name of names) subworkflows.set(name, parseSubworkflow(name, top.get(name) ?? null, ctx));
  return { main: parseSubworkflow("main", top.get("main") ?? null, ctx), subworkflows };
}

function parseSubworkflow(name: string, raw: WfValue, ctx: ParseContext): Subworkflow {
  const body = expectMap(raw, name, `subworkflow '${name}'`);
  checkKeys(body, ["params", "steps"], name);
  const params = body.has("params") ? parseParams(body.get("params") ?? null, `${name}.params`) : [];
  if (name === "main" && params.length > 1) {
    throw new InvalidWorkflowError(
      `${name}.params`,
      "main accepts a single parameter holding the runtime arguments",
    );
  }
  return { name, params, body: parseStepList(required(body, "steps", name), `${name}.steps`, ctx) };
}

function parseParams(raw: WfValue, path: string): Param[] {
  return expectList(raw, path, "params").map((entry, i) => {
    const at = `${path}[${i}]`;
    if (!isMap(entry)) return { name: expectName(entry, at, "parameter") };
    const [name, defaultValue] = singleEntry(entry, at, "a parameter with a default");
    return {
      name: expectName(name, at, "parameter"),
      defaultValue: compileTemplate(defaultValue, `${at}.${name}`),
    };
  });
}
