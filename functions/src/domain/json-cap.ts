import { extractIocs } from "./ioc.js";
import { type JsonValue, jsonBytes } from "./json.js";

/**
 * Field-wise caps for free-form JSON from a finding (sourceProperties, the fields kept
 * verbatim in `details`). Each string and list is capped on its own; when the whole is still
 * over its byte budget, whole subtrees are cut, those without an IOC first and the largest
 * first, so a 100 KB blob of console text goes before a short list of external members. Every
 * cut is listed by path, so the agent knows what it does not see.
 */
export interface CapLimits {
  stringChars: number;
  listItems: number;
  /** Deeper values are replaced by a marker (a 10 000-level object must not blow the stack). */
  maxDepth: number;
}

export class CutList {
  readonly paths: string[] = [];
  add(path: string): void {
    if (!this.paths.includes(path)) this.paths.push(path);
  }
}

export const TRUNCATED_SUFFIX = "…[truncated]";

export function childPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  const plain = /^[A-Za-z_$][\w$-]*$/.test(key);
  if (!parent) return plain ? key : `[${JSON.stringify(key)}]`;
  return plain ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

export function capString(s: string, path: string, limits: CapLimits, cuts: CutList): string {
  if (s.length <= limits.stringChars) return s;
  cuts.add(path);
  return `${s.slice(0, limits.stringChars - TRUNCATED_SUFFIX.length)}${TRUNCATED_SUFFIX}`;
}

/**
 * Any value parsed from JSON, turned into a capped JsonValue. Iterative over depth by
 * construction: recursion stops at `maxDepth`, far below the stack limit.
 */
export function toCappedJson(
  value: unknown,
  path: string,
  limits: CapLimits,
  cuts: CutList,
  depth = 0,
): JsonValue {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "string") return capString(value, path, limits, cuts);
  if (typeof value !== "object") return String(value);
  if (depth >= limits.maxDepth) {
    cuts.add(path);
    return `…[nested deeper than ${limits.maxDepth} levels]`;
  }
  if (Array.isArray(value)) {
    if (value.length > limits.listItems) cuts.add(path);
    return value
      .slice(0, limits.listItems)
      .map((item, i) => toCappedJson(item, childPath(path, i), limits, cuts, depth + 1));
  }
  const out: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    out[key] = toCappedJson(item, childPath(path, key), limits, cuts, depth + 1);
  }
  return out;
}

/** True when the value holds something IOC-shaped (address, domain, URL, email, hash). */
export function carriesIoc(value: JsonValue): boolean {
  return extractIocs(JSON.stringify(value), { includePrivateIps: true }).length > 0;
}

interface Node {
  path: string;
  container: Record<string, JsonValue> | JsonValue[];
  key: string | number;
  bytes: number;
  ioc: boolean;
  depth: number;
}

/** Subtrees that may be cut, down to `maxCutDepth` levels. */
function cuttable(root: Record<string, JsonValue>, prefix: string, maxCutDepth: number): Node[] {
  const nodes: Node[] = [];
  const visit = (container: Record<string, JsonValue> | JsonValue[], path: string, depth: number) => {
    const entries: [string | number, JsonValue][] = Array.isArray(container)
      ? container.map((v, i) => [i, v])
      : Object.entries(container);
    for (const [key, value] of entries) {
      const p = childPath(path, key);
      nodes.push({ path: p, container, key, bytes: jsonBytes(value), ioc: carriesIoc(value), depth });
      if (depth + 1 < maxCutDepth && value !== null && typeof value === "object")
        visit(value as Record<string, JsonValue> | JsonValue[], p, depth + 1);
    }
  };
  visit(root, prefix, 0);
  return nodes;
}

/**
 * Cuts subtrees of `root` (a fresh copy, not shared) until it fits `budgetBytes`: IOC-free
 * ones first, then IOC-bearing ones; within each group the largest first, preferring a deep
 * cut to a shallow one of the same size so siblings survive.
 */
export function fitBudget(
  root: Record<string, JsonValue>,
  budgetBytes: number,
  prefix: string,
  cuts: CutList,
): Record<string, JsonValue> {
  if (jsonBytes(root) <= budgetBytes) return root;
  const copy = structuredClone(root);
  const nodes = cuttable(copy, prefix, 4).sort(
    (a, b) => Number(a.ioc) - Number(b.ioc) || b.bytes - a.bytes || b.depth - a.depth,
  );
  const cutPaths: string[] = [];
  for (const node of nodes) {
    if (jsonBytes(copy) <= budgetBytes) break;
    if (
      cutPaths.some((p) => node.path === p || node.path.startsWith(`${p}.`) || node.path.startsWith(`${p}[`))
    )
      continue;
    const marker = `…[cut: ${node.bytes} bytes]`;
    if (node.bytes <= Buffer.byteLength(JSON.stringify(marker))) continue;
    if (Array.isArray(node.container)) node.container[node.key as number] = marker;
    else node.container[node.key as string] = marker;
    cutPaths.push(node.path);
    cuts.add(node.path);
  }
  return copy;
}
