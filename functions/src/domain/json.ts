import { z } from "zod";
import { InvalidInputError } from "./errors.js";

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * How deep and how large untrusted JSON may be. Everything downstream of parsing
 * (JSON.stringify, zod, the truncator, prompt rendering) recurses, and a few kilobytes of
 * `[[[[…` nested 10,000 levels deep overflow the stack with a RangeError that says nothing
 * and that a Pub/Sub handler would retry forever. SCC notifications nest a dozen levels.
 */
export const JSON_LIMITS = { maxDepth: 64, maxValues: 100_000 } as const;

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function pathText(path: readonly (string | number)[]): string {
  const shown = path.slice(0, 8).join(".");
  return path.length > 8 ? `${shown}.…` : shown || "(root)";
}

/**
 * Why `value` is not bounded JSON, naming where, or undefined when it is. Iterative, so
 * it cannot itself overflow on the input it exists to refuse.
 */
export function jsonBoundsProblem(value: unknown, limits = JSON_LIMITS): string | undefined {
  const stack: Array<{ value: unknown; path: (string | number)[] }> = [{ value, path: [] }];
  let count = 0;
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    count += 1;
    if (count > limits.maxValues) return `more than ${limits.maxValues} JSON values`;
    // undefined is an absent property to zod and JSON.stringify alike; types are zod's to check.
    if (v === undefined || v === null || typeof v === "string" || typeof v === "boolean") continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return `${pathText(path)}: ${v} is not a JSON number`;
      continue;
    }
    if (typeof v !== "object") return `${pathText(path)}: ${typeof v} is not a JSON value`;
    if (path.length >= limits.maxDepth)
      return `${pathText(path)}: nested deeper than ${limits.maxDepth} levels`;
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        stack.push({ value: item, path: [...path, i] });
      });
    } else if (isPlainObject(v)) {
      for (const [key, item] of Object.entries(v)) stack.push({ value: item, path: [...path, key] });
    } else return `${pathText(path)}: not a plain JSON object`;
  }
  return undefined;
}

/** Throws a non-retryable InvalidInputError when `value` is not bounded JSON. */
export function assertJsonBounds(value: unknown, what: string): void {
  const problem = jsonBoundsProblem(value);
  if (problem !== undefined) throw new InvalidInputError(`${what} is refused: ${problem}`);
}

export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ]),
);
/** A JSON object, bounded in depth and size (checked once, at the top). */
export const JsonObjectSchema: z.ZodType<JsonObject> = z
  .record(z.string(), JsonValueSchema)
  .superRefine((value, ctx) => {
    const problem = jsonBoundsProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  });

/** Serialized size in bytes; used for field caps and compression splits. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}
