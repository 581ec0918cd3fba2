import { parse } from "yaml";

/**
 * How many requests one execution of the workflow can have in flight at once to each function:
 * a call site counts once, times the `concurrency_limit` of every `parallel` step around it,
 * through every subworkflow call. Terraform's instance caps are checked against this number
 * times the governor's concurrent investigations (terraform/functions.tf), so the caps follow
 * the YAML instead of a number someone remembers (issue 36).
 *
 * Functions are named by the environment variable their URL comes from in `main`'s `urls` map
 * (FERRET_STEP_EXECUTOR_URL → stepExecutor), the same names Terraform keys its functions by.
 */

type Node = unknown;

function isRecord(value: Node): value is Record<string, Node> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const URL_REFERENCE = /\burls\.([A-Za-z_][A-Za-z0-9_]*)/g;
const URL_ENV = /sys\.get_env\("FERRET_([A-Z0-9_]+)_URL"\)/;

function camel(screaming: string): string {
  return screaming.toLowerCase().replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** The workflow's `urls` keys mapped to function names, from main's assignment of `urls`. */
function urlFunctions(workflow: Record<string, Node>): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (node: Node): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (isRecord(node)) {
      if (isRecord(node.urls)) {
        for (const [key, value] of Object.entries(node.urls)) {
          const env = typeof value === "string" ? URL_ENV.exec(value) : null;
          if (env?.[1]) found.set(key, camel(env[1]));
        }
      }
      Object.values(node).forEach(visit);
    }
  };
  visit(workflow.main);
  return found;
}

/** Requests in flight per function for one execution; throws on a parallel step without a limit. */
export function workflowFanout(yamlText: string): Record<string, number> {
  const workflow = parse(yamlText) as Record<string, Node>;
  const functions = urlFunctions(workflow);
  const fanout = new Map<string, number>();
  const record = (urlKey: string, multiplier: number) => {
    const name = functions.get(urlKey);
    if (name) fanout.set(name, Math.max(fanout.get(name) ?? 0, multiplier));
  };

  const walk = (node: Node, multiplier: number, stack: readonly string[]): void => {
    if (typeof node === "string") {
      for (const m of node.matchAll(URL_REFERENCE)) if (m[1]) record(m[1], multiplier);
      return;
    }
    if (Array.isArray(node)) {
      for (const item of node) walk(item, multiplier, stack);
      return;
    }
    if (!isRecord(node)) return;
    let inner = multiplier;
    if (isRecord(node.parallel)) {
      const limit = node.parallel.concurrency_limit;
      if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1)
        throw new Error(
          `a parallel step in ${stack.at(-1) ?? "the workflow"} has no concurrency_limit: its fan-out to the functions would be unbounded`,
        );
      inner = multiplier * limit;
    }
    const called = node.call;
    if (typeof called === "string" && isRecord(workflow[called]) && !stack.includes(called))
      walk(workflow[called], inner, [...stack, called]);
    for (const [key, value] of Object.entries(node)) if (key !== "call") walk(value, inner, stack);
  };

  walk(workflow.main, 1, ["main"]);
  return Object.fromEntries([...fanout].sort(([a], [b]) => a.localeCompare(b)));
}
