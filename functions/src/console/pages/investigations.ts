import { VerdictSchema } from "../../domain/conclusion.js";
import { SeveritySchema } from "../../domain/finding/finding.js";
import { type Investigation, InvestigationStatusSchema } from "../../domain/investigation.js";
import { analystVerdictOf, exactCriteria, matches, PAGE_LIMIT, parseListQuery } from "../filters.js";
import type { ConsoleDeps } from "../ports.js";
import { principalOf, SEARCH_FIELD_TEXT, SearchFieldSchema } from "../search.js";

/** The investigations page: the filters as chosen, the matching rows, and how they were found. */
export async function investigationsPage(
  deps: Pick<ConsoleDeps, "store" | "recent" | "now">,
  rawQuery: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const q = parseListQuery(rawQuery);
  const since = new Date(deps.now().getTime() - q.days * 86_400_000).toISOString();
  const exact = exactCriteria(q);
  const [window, exactHits] = await Promise.all([
    deps.recent.recent({ updatedAfter: since, limit: PAGE_LIMIT }),
    Object.keys(exact).length > 0 ? deps.store.findRelated({ ...exact, limit: PAGE_LIMIT }) : [],
  ]);
  // Newest change first, each investigation once, whichever read found it.
  const byId = new Map<string, Investigation>();
  for (const inv of [...window, ...exactHits]) byId.set(inv.id, inv);
  const read = [...byId.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
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
    full: window.length >= PAGE_LIMIT,
    pageLimit: PAGE_LIMIT,
    searched: q.q ? SEARCH_FIELD_TEXT[q.field] : "",
    filtered: Boolean(q.q || q.status || q.verdict || q.analyst || q.category || q.severity),
    how: q.q
      ? `the ${PAGE_LIMIT} most recently changed in the last ${q.days} days${Object.keys(exact).length > 0 ? " plus the exact matches of an indexed query" : ""}, searched for “${q.q}” in ${SEARCH_FIELD_TEXT[q.field]} ignoring case, then the other filters`
      : `the ${PAGE_LIMIT} most recently changed in the last ${q.days} days (indexed), then the other filters in memory`,
  };
}

function row(inv: Investigation) {
  const resource = inv.finding.resource;
  return {
    id: inv.id,
    createdAt: inv.createdAt,
    updatedAt: inv.updatedAt,
    status: inv.status,
    category: inv.finding.category || "(no category)",
    severity: inv.finding.severity,
    verdict: inv.conclusion?.verdict ?? "",
    confidence: inv.conclusion ? Math.round(inv.conclusion.confidence * 100) : "",
    analyst: analystVerdictOf(inv),
    resource: resource.displayName || resource.name.split("/").at(-1) || "",
    project: resource.projectDisplayName ?? "",
    principal: principalOf(inv.finding) ?? "",
  };
}
