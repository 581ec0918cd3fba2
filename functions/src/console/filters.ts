import { z } from "zod";
import { currentDecision } from "../domain/analyst.js";
import { VerdictSchema } from "../domain/conclusion.js";
import { InvalidInputError } from "../domain/errors.js";
import { SeveritySchema } from "../domain/finding.js";
import {
  type Investigation,
  InvestigationSchema,
  InvestigationStatusSchema,
} from "../domain/investigation.js";

/**
 * The investigations page's query string. Empty strings are "no filter" (what an HTML form
 * sends for an untouched select). Search goes to an indexed Firestore equality query (the
 * ones `findRelated` already runs: resource name, principal email, IOC value); every other
 * filter is applied in memory over the bounded page that query or the time window returned.
 */
const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const opt = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

/** The shape of an investigation id (InvestigationSchema's `id`), checked before any read. */
export const InvestigationIdSchema = InvestigationSchema.shape.id;

export const AnalystFilterSchema = z.union([VerdictSchema, z.literal("undecided")]);
export const SearchFieldSchema = z.enum(["any", "ioc", "principal", "resource"]);

export const ListQuerySchema = z.object({
  status: opt(InvestigationStatusSchema),
  verdict: opt(VerdictSchema),
  analyst: opt(AnalystFilterSchema),
  category: opt(z.string().trim().max(200)),
  severity: opt(SeveritySchema),
  days: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(365).default(7)),
  q: opt(z.string().trim().max(500)),
  field: z.preprocess(blankToUndefined, SearchFieldSchema.default("any")),
});
export type ListQuery = z.infer<typeof ListQuerySchema>;

/** At most this many investigations are read per page; the page says when it was full. */
export const PAGE_LIMIT = 300;

export function parseListQuery(raw: Record<string, unknown>): ListQuery {
  // A repeated parameter (?status=a&status=b) arrives as an array: take none of it.
  const single = Object.fromEntries(Object.entries(raw).filter(([, v]) => typeof v === "string"));
  const parsed = ListQuerySchema.safeParse(single);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidInputError(
      `bad filter ${issue?.path.map(String).join(".") || "(query)"}: ${issue?.message ?? "invalid"}`,
    );
  }
  return parsed.data;
}

/** The analyst's verdict that stands, or "undecided". */
export function analystVerdictOf(investigation: Investigation): string {
  const d = currentDecision(investigation.analystDecisions);
  if (!d) return "undecided";
  return d.kind === "confirm"
    ? (investigation.conclusion?.verdict ?? "undecided")
    : (d.verdict ?? "undecided");
}

/** The in-memory filters; search and the time window were applied by the query. */
export function matches(investigation: Investigation, q: ListQuery, since: string): boolean {
  if (investigation.updatedAt <= since) return false;
  if (q.status && investigation.status !== q.status) return false;
  if (q.verdict && investigation.conclusion?.verdict !== q.verdict) return false;
  if (q.analyst && analystVerdictOf(investigation) !== q.analyst) return false;
  if (q.category && investigation.finding.category !== q.category) return false;
  if (q.severity && investigation.finding.severity !== q.severity) return false;
  return true;
}

/** Which indexed equality queries a search runs. */
export function searchCriteria(q: ListQuery): {
  resourceName?: string;
  principal?: string;
  iocValue?: string;
} {
  if (!q.q) return {};
  const value = q.q;
  switch (q.field) {
    case "ioc":
      return { iocValue: value };
    case "principal":
      return { principal: value };
    case "resource":
      return { resourceName: value };
    case "any":
      return { iocValue: value, principal: value, resourceName: value };
  }
}
