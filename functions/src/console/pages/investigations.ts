import { VerdictSchema } from "../../domain/conclusion.js";
import { SeveritySchema } from "../../domain/finding.js";
import { type Investigation, InvestigationStatusSchema } from "../../domain/investigation.js";
import {
  analystVerdictOf,
  matches,
  PAGE_LIMIT,
  parseListQuery,
  SearchFieldSchema,
  searchCriteria,
} from "../filters.js";
import type { ConsoleDeps } from "../ports.js";

/** The investigations page: the filters as chosen, the matching rows, and how they were found. */
export async function investigationsPage(
  deps: Pick<ConsoleDeps, "store" | "recent" | "now">,
  rawQuery: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const q = parseListQuery(rawQuery);
  const since = new Date(deps.now().getTime() - q.days * 86_400_000).toISOString();
  const criteria = searchCriteria(q);
  const searching = Object.keys(criteria).length > 0;
  const read = searching
    ? await deps.store.findRelated({ ...criteria, limit: PAGE_LIMIT })
    : await deps.recent.recent({ updatedAfter: since, limit: PAGE_LIMIT });
  const rows = read.filter((inv) => matches(inv, q, since)).map(row);
  return {
    title: "Investigations",
    nav: "investigations",
    filters: {
      status: q.status ?? "",
      verdict: q.verdict ?? "",
      analyst: q.analyst ?? "",
      category: q.category ?? "",
      severity: q.severity ?? "",
      days: q.days,
      q: q.q ?? "",
      field: q.field,
    },
    options: {
      statuses: InvestigationStatusSchema.options,
      verdicts: VerdictSchema.options,
      analyst: [...VerdictSchema.options, "undecided"],
      severities: SeveritySchema.options,
      fields: SearchFieldSchema.options,
    },
    rows,
    read: read.length,
    full: read.length >= PAGE_LIMIT,
    pageLimit: PAGE_LIMIT,
    how: searching
      ? "search: indexed exact-match query on IOC value, principal email or resource name (newest first), then the other filters in memory"
      : `the ${PAGE_LIMIT} most recently changed in the time window (indexed), then the other filters in memory`,
  };
}

function row(inv: Investigation) {
  return {
    id: inv.id,
    createdAt: inv.createdAt,
    updatedAt: inv.updatedAt,
    status: inv.status,
    category: inv.finding.category,
    severity: inv.finding.severity,
    verdict: inv.conclusion?.verdict ?? "",
    confidence: inv.conclusion ? Math.round(inv.conclusion.confidence * 100) : "",
    analyst: analystVerdictOf(inv),
    resource: inv.finding.resource.displayName ?? inv.finding.resource.name,
    principal: inv.finding.access?.principalEmail ?? "",
  };
}
