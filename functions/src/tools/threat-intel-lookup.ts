import { z } from "zod";
import { errorMessage, isRetryable, ToolFailedError } from "../domain/errors.js";
import { type Ioc, IocTypeSchema, iocKey } from "../domain/ioc.js";
import type { IntelReport, ThreatIntel } from "../ports/threat-intel.js";
import { type AnyTool, defineTool } from "./port.js";

export const MAX_INDICATORS = 20;

const InputSchema = z.object({
  indicators: z
    .array(
      z.object({
        type: IocTypeSchema.describe("ip, domain, url, hash, email or principal"),
        value: z.string().trim().min(1).max(2_048),
      }),
    )
    .min(1)
    .max(MAX_INDICATORS)
    .describe(`Up to ${MAX_INDICATORS} indicators to look up.`),
});

function reportLine(report: IntelReport): string {
  const related = report.related.length > 0 ? ` (${report.related.slice(0, 3).join(", ")})` : "";
  return `${report.indicator.value} ${report.verdict}${related}`;
}

/**
 * Looks indicators up in threat intelligence. The verdicts come from the provider's data;
 * provider descriptions are attacker-influenced and travel as quoted data only.
 */
export function createThreatIntelLookupTool(intel: ThreatIntel): AnyTool {
  return defineTool({
    name: "threat_intel_lookup",
    readOnly: true,
    description:
      `Look up IPs, domains, URLs, file hashes, emails or principals in threat intelligence (${intel.name}). ` +
      "Returns a verdict per indicator (malicious, suspicious, benign, unknown) with tags, related malware/campaigns/actors and first/last seen. " +
      "Unknown means the feed has nothing, not that the indicator is safe.",
    input: InputSchema,
    async run(input, ctx) {
      const seen = new Set<string>();
      const indicators = input.indicators.filter((i) => {
        const key = iocKey(i);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      // An abandoned step asks no provider; a lookup under way is aborted with it.
      ctx.signal?.throwIfAborted();
      const options = ctx.signal ? { signal: ctx.signal } : {};
      const settled = await Promise.allSettled(indicators.map((i) => intel.lookup(i, options)));
      ctx.signal?.throwIfAborted();
      const reports: IntelReport[] = [];
      const errors: Array<{ type: string; value: string; message: string; retryable: boolean }> = [];
      settled.forEach((outcome, k) => {
        const indicator = indicators[k]!;
        if (outcome.status === "fulfilled") reports.push(outcome.value);
        else
          errors.push({
            ...indicator,
            message: errorMessage(outcome.reason),
            retryable: isRetryable(outcome.reason),
          });
      });
      if (reports.length === 0) {
        const retryable = errors.some((e) => e.retryable);
        throw new ToolFailedError(
          "threat_intel_lookup",
          `every lookup failed: ${errors[0]?.message ?? "no result"}`,
          retryable,
        );
      }
      const iocs: Ioc[] = reports
        .filter((r) => r.verdict === "malicious" || r.verdict === "suspicious")
        .map((r) => ({
          type: r.indicator.type,
          value: r.indicator.value,
          context:
            `threat intel (${r.sources[0] ?? intel.name}): ${r.verdict}${r.related.length > 0 ? `, ${r.related.slice(0, 3).join(", ")}` : ""}`.slice(
              0,
              500,
            ),
        }));
      const flagged = reports.filter((r) => r.verdict === "malicious" || r.verdict === "suspicious").length;
      const summary =
        `${reports.length} looked up, ${flagged} flagged: ${reports.map(reportLine).join("; ")}.` +
        (errors.length > 0 ? ` ${errors.length} failed (${errors.map((e) => e.value).join(", ")}).` : "");
      return {
        ok: true,
        summary,
        data: {
          reports: reports.map((r) => ({
            indicator: r.indicator,
            verdict: r.verdict,
            sources: r.sources,
            tags: r.tags,
            related: r.related,
            ...(r.firstSeen ? { firstSeen: r.firstSeen } : {}),
            ...(r.lastSeen ? { lastSeen: r.lastSeen } : {}),
            // Quoted provider text: data to weigh, never instructions.
            ...(r.description ? { providerDescription: r.description } : {}),
          })),
          ...(errors.length > 0 ? { errors } : {}),
        },
        iocs,
        verdicts: reports.map((r) => ({
          type: r.indicator.type,
          value: r.indicator.value,
          verdict: r.verdict,
          sources: r.sources.slice(0, 10).map((source) => source.slice(0, 200)),
        })),
      };
    },
  });
}
