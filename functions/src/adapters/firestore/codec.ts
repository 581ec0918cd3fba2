import { z } from "zod";
import { InvalidInputError, StorageError } from "../../domain/errors.js";
import {
  type Investigation,
  type InvestigationEvent,
  InvestigationEventSchema,
  InvestigationSchema,
} from "../../domain/investigation.js";
import { type Reflection, ReflectionSchema } from "../../domain/reflection.js";
import { type StepResult, StepResultSchema } from "../../domain/results.js";

/**
 * Domain objects ↔ Firestore documents.
 *
 * Free-form JSON (a finding's sourceProperties and details, tool-call arguments and outputs) is stored
 * as a JSON string: Firestore rejects arrays nested directly in arrays (query rows often
 * are), field names like `__x__`, and nesting beyond 20 levels, and that content comes from
 * outside. Everything queried or worth reading in the console stays a native field.
 *
 * Reads are validated: a document that does not match its schema raises a StorageError
 * naming the document and the first problems, instead of failing somewhere later.
 */
export type DocumentFields = Record<string, unknown>;

export function encodeInvestigation(investigation: Investigation): DocumentFields {
  return {
    ...investigation,
    finding: {
      ...investigation.finding,
      sourceProperties: JSON.stringify(investigation.finding.sourceProperties),
      ...(investigation.finding.details === undefined
        ? {}
        : { details: JSON.stringify(investigation.finding.details) }),
    },
  };
}

export function decodeInvestigation(data: unknown, path: string): Investigation {
  const raw = asRecord(data, path);
  const finding = raw.finding;
  const restored =
    isRecord(finding) && typeof finding.sourceProperties === "string"
      ? {
          ...raw,
          finding: {
            ...finding,
            sourceProperties: parseJson(finding.sourceProperties, `${path} finding.sourceProperties`),
            ...(typeof finding.details === "string"
              ? { details: parseJson(finding.details, `${path} finding.details`) }
              : {}),
          },
        }
      : raw;
  return decode(InvestigationSchema, restored, path);
}

export function encodeStepResult(result: StepResult): DocumentFields {
  return { ...result, toolCalls: JSON.stringify(result.toolCalls) };
}

export function decodeStepResult(data: unknown, path: string): StepResult {
  const raw = asRecord(data, path);
  const restored =
    typeof raw.toolCalls === "string"
      ? { ...raw, toolCalls: parseJson(raw.toolCalls, `${path} toolCalls`) }
      : raw;
  return decode(StepResultSchema, restored, path);
}

export function encodeReflection(reflection: Reflection): DocumentFields {
  return { ...reflection };
}

export function decodeReflection(data: unknown, path: string): Reflection {
  return decode(ReflectionSchema, data, path);
}

export function encodeEvent(event: InvestigationEvent): DocumentFields {
  return { ...event };
}

export function decodeEvent(data: unknown, path: string): InvestigationEvent {
  return decode(InvestigationEventSchema, data, path);
}

const ClaimSchema = z.object({
  scope: z.string(),
  key: z.string(),
  value: z.record(z.string(), z.string()),
  claimedAt: z.iso.datetime(),
});
export type Claim = z.infer<typeof ClaimSchema>;

export function decodeClaim(data: unknown, path: string): Claim {
  return decode(ClaimSchema, data, path);
}

/**
 * Validates what a caller asks us to write; a bad value is the caller's bug, not storage's.
 * Keys holding undefined are dropped, as Firestore drops them, so what a write returns
 * equals what a later read returns.
 */
export function checked<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return withoutUndefined(result.data);
  throw new InvalidInputError(`refusing to store an invalid ${what}: ${describeIssues(result.error)}`, {
    issues: result.error.issues.slice(0, 5),
  });
}

function withoutUndefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => withoutUndefined(item)) as T;
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = withoutUndefined(item);
  return out as T;
}

function decode<T>(schema: z.ZodType<T>, data: unknown, path: string): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw new StorageError(
    `stored document ${path} is corrupt: ${describeIssues(result.error)}`,
    false,
    result.error,
  );
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StorageError(`stored document ${where} is corrupt: not JSON`, false, error);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asRecord(data: unknown, path: string): Record<string, unknown> {
  if (isRecord(data)) return data;
  throw new StorageError(`stored document ${path} is corrupt: not an object`, false);
}
