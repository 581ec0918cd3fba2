import type { z } from "zod";
import { ModelOutputError } from "../domain/errors.js";
import type { JsonObject } from "../domain/json.js";
import { addUsage, type Usage, ZERO_USAGE } from "../domain/results.js";
import { jsonSchemaOf } from "./json-schema.js";
import type { GenerateRequest, GenerateResponse, Message, Model } from "./port.js";

export interface StructuredOptions {
  /** One follow-up request that shows the model its errors. Default true. */
  repair?: boolean;
}

export interface StructuredResult<T> {
  value: T;
  /** Summed over the first call and the repair call, if any. */
  usage: Usage;
  /** 1, or 2 when a repair was needed. */
  calls: number;
  /** The model that produced the accepted answer. */
  model: string;
}

/**
 * The first line of the user message that asks for a repair. Non-LLM adapters (scripted,
 * offline) can recognise a repair with isRepairRequest while the brief stays that of the
 * original role, so they still know which role is speaking.
 */
export const REPAIR_MARKER = "Your previous answer was rejected by the validator.";

/** Long broken answers are cut in the repair prompt: the errors matter more than the bytes. */
const MAX_ECHOED_OUTPUT_CHARS = 8_000;
const MAX_LISTED_ISSUES = 20;

/**
 * Asks for JSON matching `schema`, validates it with zod, and makes exactly one repair
 * attempt before giving up with ModelOutputError. Provider errors (unavailable, token limit)
 * pass through untouched: they are not the model's fault and have their own policies.
 */
export async function generateStructured<T>(
  model: Model,
  request: GenerateRequest,
  schema: z.ZodType<T>,
  options: StructuredOptions = {},
): Promise<StructuredResult<T>> {
  const first: GenerateRequest = { ...request, responseSchema: cachedJsonSchema(schema) };
  const firstResponse = await model.generate(first);
  const firstCheck = checkResponse(schema, firstResponse);
  if (firstCheck.ok) {
    return { value: firstCheck.value, usage: firstResponse.usage, calls: 1, model: firstResponse.model };
  }
  if (options.repair === false) {
    throw outputError(request, firstResponse, firstCheck.issues, 1);
  }
  const repairResponse = await model.generate(repairRequest(first, firstResponse, firstCheck.issues));
  const usage = addUsage(addUsage(ZERO_USAGE, firstResponse.usage), repairResponse.usage);
  const repairCheck = checkResponse(schema, repairResponse);
  if (repairCheck.ok) {
    return { value: repairCheck.value, usage, calls: 2, model: repairResponse.model };
  }
  throw outputError(request, repairResponse, repairCheck.issues, 2, firstCheck.issues, usage);
}

/** Roles call with the same few schemas thousands of times; convert each once. */
const schemaCache = new WeakMap<z.ZodType, JsonObject>();

function cachedJsonSchema(schema: z.ZodType): JsonObject {
  let json = schemaCache.get(schema);
  if (!json) {
    json = jsonSchemaOf(schema);
    schemaCache.set(schema, json);
  }
  // A copy, so an adapter that rewrites the request cannot corrupt the cached original.
  return structuredClone(json);
}

export function isRepairRequest(request: GenerateRequest): boolean {
  const last = request.messages.at(-1);
  return last?.role === "user" && last.text.startsWith(REPAIR_MARKER);
}

export type Validation<T> = { ok: true; value: T } | { ok: false; issues: string[]; message: string };

/**
 * Validates a value (e.g. tool-call arguments) and, when it fails, describes the problems in
 * a form the model can act on: one line per issue with the JSON path.
 */
export function validateOrDescribe<T>(schema: z.ZodType<T>, value: unknown): Validation<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = describeIssues(parsed.error.issues);
  return { ok: false, issues, message: issues.join("; ") };
}

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "$";
  for (const key of path) out += typeof key === "number" ? `[${key}]` : `.${String(key)}`;
  return out;
}

export type JsonParse = { ok: true; value: unknown } | { ok: false; issue: string };

/**
 * Parses model text as JSON. Models sometimes wrap JSON in a ```json fence even in JSON
 * mode, or add a sentence around it; the fence is tolerated, prose is not.
 */
export function parseJsonText(text: string | undefined): JsonParse {
  if (text === undefined || text.trim() === "")
    return { ok: false, issue: "$: the answer was empty, expected JSON" };
  const trimmed = text.trim();
  const fenced = /^```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(trimmed);
  const body = fenced?.[1] ?? trimmed;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, issue: `$: the answer is not valid JSON (${reason})` };
  }
}

type Check<T> = { ok: true; value: T } | { ok: false; issues: string[] };

function checkResponse<T>(schema: z.ZodType<T>, response: GenerateResponse): Check<T> {
  const parsed = parseJsonText(response.text);
  if (!parsed.ok) {
    const issues = [parsed.issue];
    if (response.toolCalls.length > 0)
      issues.push("$: a tool call was made where a JSON answer was required");
    return { ok: false, issues };
  }
  const validated = validateOrDescribe(schema, parsed.value);
  return validated.ok ? validated : { ok: false, issues: validated.issues };
}

function repairRequest(
  first: GenerateRequest,
  response: GenerateResponse,
  issues: string[],
): GenerateRequest {
  const echoed = truncate(response.text ?? "", MAX_ECHOED_OUTPUT_CHARS);
  const listed = issues.slice(0, MAX_LISTED_ISSUES);
  const more = issues.length > listed.length ? [`(and ${issues.length - listed.length} more)`] : [];
  const instruction = [
    REPAIR_MARKER,
    "Problems found:",
    ...listed.map((issue) => `- ${issue}`),
    ...more,
    "",
    "Answer again with only the corrected JSON document that satisfies the response schema.",
    "Keep everything that was right; change only what the problems require. No prose, no code fence.",
  ].join("\n");
  const messages: Message[] = [
    ...first.messages,
    { role: "model", text: echoed },
    { role: "user", text: instruction },
  ];
  return { ...first, messages };
}

function outputError(
  request: GenerateRequest,
  response: GenerateResponse,
  issues: string[],
  calls: number,
  firstIssues?: string[],
  usage?: Usage,
): ModelOutputError {
  return new ModelOutputError(
    `${response.model} did not produce valid ${request.brief.role} output after ${calls} call(s): ${issues
      .slice(0, 5)
      .join("; ")}`,
    {
      role: request.brief.role,
      model: response.model,
      calls,
      issues,
      ...(firstIssues ? { firstIssues } : {}),
      output: truncate(response.text ?? "", 2_000),
      usage: usage ?? response.usage,
    },
  );
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters cut]`;
}
