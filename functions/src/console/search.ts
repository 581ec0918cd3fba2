import { z } from "zod";
import type { Finding } from "../domain/finding/finding.js";
import type { Investigation } from "../domain/investigation.js";
import { visibleText } from "../domain/visible-text.js";

/**
 * The investigations page's search: a case-insensitive substring match over what an analyst
 * remembers of an investigation — an IOC, the resource, the principal, the category, the
 * summary. Firestore has no substring or case-folding query, so the match runs in memory over
 * the bounded page the console reads (filters.ts says which), and an analyst can paste a
 * value as ferret shows it, defanged ("203.0.113[.]88", "hxxps://…").
 */

export const SearchFieldSchema = z.enum(["any", "ioc", "resource", "principal", "category", "summary"]);
export type SearchField = z.infer<typeof SearchFieldSchema>;

/** What each field covers, for the page's hint and the empty state. */
export const SEARCH_FIELD_TEXT: Record<SearchField, string> = {
  any: "IOCs, resource, principal, category and summary",
  ioc: "IOCs (the finding's and the conclusion's)",
  resource: "resource and project (name or display name)",
  principal: "principal (email, subject, user, delegation chain, IAM binding members)",
  category: "category",
  summary: "summary, why and the finding's description",
};

/** Defanging undone (notify/defang.ts's forms), so a value copied from ferret's output is found. */
export function refang(text: string): string {
  return text
    .replaceAll("[.]", ".")
    .replaceAll("[@]", "@")
    .replace(/\bhxxp(s?):\/\//gi, "http$1://")
    .replace(/\bfxp(s?):\/\//gi, "ftp$1://")
    .trim();
}

/**
 * Folded the way the page shows text (domain/visible-text.ts), then case and compatibility forms
 * folded and defanging undone: a principal with a zero-width space inside is found by what the
 * page shows, and "203.0.113[.]88" finds 203.0.113.88.
 */
export function foldForSearch(text: string): string {
  return refang(visibleText(text).normalize("NFKC").toLowerCase());
}

/**
 * The principal a finding names, most specific first; undefined when SCC named none (a VM's
 * process, say: the resource is then the subject).
 */
export function principalOf(finding: Finding): string | undefined {
  const a = finding.access;
  return (
    a?.principalEmail ||
    a?.principalSubject ||
    a?.userName ||
    a?.delegationChain?.[0] ||
    finding.iamBindings.find((b) => b.member)?.member ||
    undefined
  );
}

function present(values: readonly (string | undefined)[]): string[] {
  return values.filter((v): v is string => typeof v === "string" && v.length > 0);
}

function principals(finding: Finding): string[] {
  const a = finding.access;
  return present([
    a?.principalEmail,
    a?.principalSubject,
    a?.userName,
    a?.serviceAccountKeyName,
    ...(a?.delegationChain ?? []),
    ...finding.iamBindings.map((b) => b.member),
  ]);
}

/** The texts a field covers for one investigation, before folding. */
export function searchTexts(investigation: Investigation, field: SearchField): string[] {
  const f = investigation.finding;
  const c = investigation.conclusion;
  switch (field) {
    case "ioc":
      return present([
        ...investigation.iocValues,
        ...(c?.iocs.map((i) => i.value) ?? []),
        ...f.indicators.ipAddresses,
        ...f.indicators.domains,
        ...f.indicators.uris,
        ...f.indicators.hashes,
      ]);
    case "resource":
      return present([
        f.resource.name,
        f.resource.displayName,
        f.resource.project,
        f.resource.projectDisplayName,
      ]);
    case "principal":
      return principals(f);
    case "category":
      return present([f.category]);
    case "summary":
      return present([c?.summary, c?.why, f.description]);
    case "any":
      return (["ioc", "resource", "principal", "category", "summary"] as const).flatMap((k) =>
        searchTexts(investigation, k),
      );
  }
}

/** Whether the folded needle occurs in any text the field covers. */
export function matchesSearch(investigation: Investigation, needle: string, field: SearchField): boolean {
  const folded = foldForSearch(needle);
  if (folded.length === 0) return true;
  return searchTexts(investigation, field).some((text) => foldForSearch(text).includes(folded));
}
