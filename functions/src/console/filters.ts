import { z } from "zod";
import { currentDecision } from "../domain/analyst.js";
import { VerdictSchema } from "../domain/conclusion.js";
import { InvalidInputError } from "../domain/errors.js";
import { SeveritySchema } from "../domain/finding/finding.js";
import {
  type Investigation,
  InvestigationSchema,
  InvestigationStatusSchema,
} from "../domain/investigation.js";
import { foldForSearch, matchesSearch, refang, SearchFieldSchema } from "./search.js";

/**
 * The investigations page's query string. Empty strings are "no filter" (what an HTML form
 * sends for an untouched select). Every filter, search included (search.ts: case-insensitive
 * substring), is applied in memory over the bounded page read for the time window; a search
 * also reads the indexed exact matches (`findRelated`: IOC value, principal email, resource
 * name), so an exact value is found even when the window's page was full.
 */
const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const opt = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

/** The shape of an investigation id (InvestigationSchema's `id`), checked before any read. */
export const InvestigationIdSchema = InvestigationSchema.shape.id;

export const AnalystFilterSchema = z.union([VerdictSchema, z.literal("undecided")]);

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

/** The filters, all in memory: the time window, the selects, category and search as substrings. */
export function matches(investigation: Investigation, q: ListQuery, since: string): boolean {
  if (investigation.updatedAt <= since) return false;
  if (q.status && investigation.status !== q.status) return false;
  if (q.verdict && investigation.conclusion?.verdict !== q.verdict) return false;
  if (q.analyst && analystVerdictOf(investigation) !== q.analyst) return false;
  if (q.category && !foldForSearch(investigation.finding.category).includes(foldForSearch(q.category)))
    return false;
  if (q.severity && investigation.finding.severity !== q.severity) return false;
  if (q.q && !matchesSearch(investigation, q.q, q.field)) return false;
  return true;
}

/**
 * The indexed equality queries a search also runs (values stored as ingest wrote them), so an
 * exact IOC, principal or resource name is found beyond the window's bounded page. Category
 * and summary have no such index.
 */
export function exactCriteria(q: ListQuery): {
  resourceName?: string;
  principal?: string;
  iocValue?: string;
} {
  if (!q.q) return {};
  const value = refang(q.q);
  switch (q.field) {
    case "ioc":
      return { iocValue: value };
    case "principal":
      return { principal: value };
    case "resource":
      return { resourceName: value };
    case "any":
      return { iocValue: value, principal: value, resourceName: value };
    case "category":
    case "summary":
      return {};
  }
}
