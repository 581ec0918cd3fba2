import { ConfigError, errorMessage, isRetryable } from "../../domain/errors.js";
import type { IocType } from "../../domain/ioc.js";
import {
  type IntelReport,
  IntelReportSchema,
  type IntelVerdict,
  type LookupOptions,
  type ThreatIntel,
} from "../../ports/threat-intel.js";
import { IntelProviderError } from "./errors.js";
import { uniqueCapped } from "./feed-text.js";

const RANK: Record<IntelVerdict, number> = { unknown: 0, benign: 1, suspicious: 2, malicious: 3 };
const MAX_SOURCES = 20;
const MAX_TAGS = 40;
const MAX_RELATED = 20;
const MAX_DESCRIPTION = 2_000;

/**
 * Asks every provider (say a STIX export and OTX) in parallel and merges their reports.
 * The worst verdict wins: for triage a miss costs more than a second look, and one feed's
 * silence ("unknown") must not dilute another's listing. When one provider calls the
 * indicator benign and another harmful, the report says so (`conflicting-intel`). A
 * provider that fails is named in the tags (`intel-unavailable:<name>`) rather than
 * failing the lookup; only when every provider fails does the lookup fail.
 */
export class CombinedThreatIntel implements ThreatIntel {
  readonly name: string;

  constructor(private readonly providers: readonly ThreatIntel[]) {
    if (providers.length === 0) throw new ConfigError("CombinedThreatIntel needs at least one provider");
    this.name = providers.map((p) => p.name).join("+");
  }

  async lookup(indicator: { type: IocType; value: string }, options?: LookupOptions): Promise<IntelReport> {
    const settled = await Promise.allSettled(this.providers.map((p) => p.lookup(indicator, options)));
    const reports: Array<{ provider: string; report: IntelReport }> = [];
    const failed: Array<{ provider: string; error: unknown }> = [];
    settled.forEach((outcome, k) => {
      const provider = this.providers[k]!.name;
      if (outcome.status === "fulfilled") reports.push({ provider, report: outcome.value });
      else failed.push({ provider, error: outcome.reason });
    });
    if (reports.length === 0) {
      throw new IntelProviderError(
        this.name,
        `every provider failed: ${failed.map((f) => `${f.provider}: ${errorMessage(f.error)}`).join("; ")}`,
        failed.some((f) => isRetryable(f.error)),
        { cause: failed[0]?.error },
      );
    }
    return mergeReports(
      indicator,
      reports,
      failed.map((f) => f.provider),
    );
  }
}

export function mergeReports(
  indicator: { type: IocType; value: string },
  reports: ReadonlyArray<{ provider: string; report: IntelReport }>,
  unavailable: readonly string[] = [],
): IntelReport {
  // Stable: among equally bad verdicts the first provider decides (the order given).
  const ordered = [...reports].sort((a, b) => RANK[b.report.verdict] - RANK[a.report.verdict]);
  const deciding = ordered[0]!.report;
  const verdicts = new Set(reports.map((r) => r.report.verdict));
  const conflicting = verdicts.has("benign") && (verdicts.has("suspicious") || verdicts.has("malicious"));
  const times = (pick: (r: IntelReport) => string | undefined) =>
    reports
      .map((r) => pick(r.report))
      .filter((t): t is string => t !== undefined && !Number.isNaN(Date.parse(t)))
      .sort((a, b) => Date.parse(a) - Date.parse(b));
  const first = times((r) => r.firstSeen);
  const last = times((r) => r.lastSeen);
  const description = ordered
    .filter((r) => r.report.description)
    .map((r) => `[${r.provider}] ${r.report.description}`)
    .join("\n")
    .slice(0, MAX_DESCRIPTION);
  return IntelReportSchema.parse({
    indicator,
    verdict: deciding.verdict,
    sources: uniqueCapped(
      ordered.flatMap((r) => r.report.sources),
      MAX_SOURCES,
    ),
    tags: uniqueCapped(
      [
        ...ordered.flatMap((r) => r.report.tags),
        ...(conflicting ? ["conflicting-intel"] : []),
        ...unavailable.map((p) => `intel-unavailable:${p}`),
      ],
      MAX_TAGS,
    ),
    ...(first[0] ? { firstSeen: first[0] } : {}),
    ...(last.length > 0 ? { lastSeen: last[last.length - 1] } : {}),
    ...(description ? { description } : {}),
    related: uniqueCapped(
      ordered.flatMap((r) => r.report.related),
      MAX_RELATED,
    ),
  });
}
