import { InvalidWorkflowError, UnsupportedConstructError } from "../errors.js";
import { isList, isMap, typeName, type WfMap, type WfValue } from "../values.js";

// Small structural checks over the parsed YAML, each reporting the exact path.

export function expectMap(value: WfValue, path: string, what: string): WfMap {
  if (!isMap(value)) throw new InvalidWorkflowError(path, `${what} must be a map, got ${typeName(value)}`);
  return value;
}

export function expectList(value: WfValue, path: string, what: string): WfValue[] {
  if (!isList(value)) throw new InvalidWorkflowError(path, `${what} must be a list, got ${typeName(value)}`);
  return value;
}

export function expectString(value: WfValue, path: string, what: string): string {
  if (typeof value !== "string")
    throw new InvalidWorkflowError(path, `${what} must be a string, got ${typeName(value)}`);
  return value;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function expectName(value: WfValue, path: string, what: string): string {
  const name = expectString(value, path, what);
  if (!NAME.test(name))
    throw new InvalidWorkflowError(path, `${what} ${JSON.stringify(name)} is not a valid name`);
  return name;
}

/** A `- name: body` list entry. */
export function singleEntry(value: WfValue, path: string, what: string): [string, WfValue] {
  const map = expectMap(value, path, what);
  const first = [...map][0];
  if (map.size !== 1 || !first) {
    throw new InvalidWorkflowError(path, `${what} must be a map with exactly one key, got ${map.size}`);
  }
  return first;
}

/**
 * Rejects keys outside `allowed`. An unknown key is reported as unsupported rather
 * than ignored: it is either a typo or a Workflows feature this runner lacks.
 */
export function checkKeys(map: WfMap, allowed: readonly string[], path: string): void {
  for (const key of map.keys()) {
    if (!allowed.includes(key)) {
      throw new UnsupportedConstructError(`${path}.${key}`, `key '${key}' is not supported here`);
    }
  }
}

export function required(map: WfMap, key: string, path: string): WfValue {
  if (!map.has(key)) throw new InvalidWorkflowError(path, `missing required key '${key}'`);
  return map.get(key) ?? null;
}
