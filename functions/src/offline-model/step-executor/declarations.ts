import type { JsonObject, JsonValue } from "../../domain/json.js";
import type { ToolDeclaration } from "../../model/port.js";

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every property schema of a tool's arguments, across anyOf/oneOf/allOf variants. */
export function propertiesOf(schema: JsonValue | undefined, depth = 0): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  if (!isObject(schema) || depth > 4) return out;
  if (isObject(schema.properties)) {
    for (const [name, prop] of Object.entries(schema.properties)) if (isObject(prop)) out.set(name, prop);
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const variants = schema[key];
    if (!Array.isArray(variants)) continue;
    for (const v of variants)
      for (const [name, prop] of propertiesOf(v, depth + 1)) if (!out.has(name)) out.set(name, prop);
  }
  return out;
}

export function requiredOf(schema: JsonValue | undefined): string[] {
  if (!isObject(schema) || !Array.isArray(schema.required)) return [];
  return schema.required.filter((r): r is string => typeof r === "string");
}

function enumOf(prop: JsonObject | undefined): string[] {
  if (!prop) return [];
  if (Array.isArray(prop.enum)) return prop.enum.filter((v): v is string => typeof v === "string");
  for (const key of ["anyOf", "oneOf"]) {
    const variants = prop[key];
    if (Array.isArray(variants)) {
      return variants.flatMap((v) =>
        isObject(v) && typeof v.const === "string" ? [v.const] : isObject(v) ? enumOf(v) : [],
      );
    }
  }
  return [];
}

export interface LogToolShape {
  name: string;
  sql: boolean;
  acceptsRunbook: boolean;
  /** Runbook names the declaration advertises (enum, or listed in its description). */
  runbooks: string[];
  runbookParamsKey?: string;
}

/**
 * What the log tool accepts, read from its declaration: free SQL, named runbooks, or
 * both. Runbook names come from an enum when there is one, else from the description,
 * where a runbook is written like `name(param, …)` or `name`.
 */
export function logToolShape(declaration: ToolDeclaration): LogToolShape {
  const props = propertiesOf(declaration.parameters);
  const runbookProp = props.get("runbook");
  const fromEnum = enumOf(runbookProp);
  const fromText =
    runbookProp && fromEnum.length === 0
      ? [
          ...`${declaration.description} ${String(runbookProp.description ?? "")}`.matchAll(
            /`([a-z][a-z0-9_]{2,60})`/g,
          ),
        ].map((m) => m[1] ?? "")
      : [];
  const paramsKey = ["params", "parameters", "args"].find((k) => props.has(k));
  return {
    name: declaration.name,
    sql: props.has("sql") || props.has("query"),
    acceptsRunbook: runbookProp !== undefined,
    runbooks: [...new Set([...fromEnum, ...fromText])].filter(Boolean),
    ...(paramsKey ? { runbookParamsKey: paramsKey } : {}),
  };
}

/**
 * A log-analysis sub-agent takes a natural-language `request` instead of SQL or a runbook
 * (functions/src/tools/log-analysis.ts); the step executor asks it a question.
 */
export function isLogAnalystTool(declaration: ToolDeclaration): boolean {
  const props = propertiesOf(declaration.parameters);
  return (
    props.get("request")?.type === "string" &&
    !props.has("sql") &&
    !props.has("query") &&
    !props.has("runbook")
  );
}
