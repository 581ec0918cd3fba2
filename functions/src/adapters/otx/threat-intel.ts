import { z } from "zod";
import { ConfigError, errorMessage, InvalidInputError } from "../../domain/errors.js";
import { type IocType, IocTypeSchema } from "../../domain/ioc.js";
import {
  type IntelReport,
  IntelReportSchema,
  type LookupOptions,
  type ThreatIntel,
} from "../../ports/threat-intel.js";
import { IntelProviderError } from "../intel/errors.js";
import { quoteFeedText, uniqueCapped } from "../intel/feed-text.js";
import { type OtxSection, otxTarget } from "./indicator.js";
import { type OtxGeneral, OtxGeneralSchema } from "./response.js";
import { assessOtx, OTX_RULES, type OtxRules, otxTime } from "./verdict.js";

export interface OtxThreatIntelOptions {
  apiKey: string;
  /** https://otx.alienvault.com unless a test points elsewhere. */
  baseUrl?: string;
  /** Per request; OTX is slow at times and a step should not hang on it. */
  timeoutMs?: number;
  /** Reports are reused for this long, so one investigation's repeated lookups cost one call. */
  cacheTtlMs?: number;
  rules?: OtxRules;
  now?: () => Date;
  fetch?: typeof fetch;
}

export const OTX_DEFAULTS = {
  baseUrl: "https://otx.alienvault.com",
  timeoutMs: 8_000,
  cacheTtlMs: 15 * 60_000,
} as const;

const NAME = "otx";
const MAX_SOURCES = 10;
const MAX_TAGS = 25;
const MAX_RELATED = 20;
const CACHE_SIZE = 1_000;
const LookupSchema = z.object({ type: IocTypeSchema, value: z.string().trim().min(1).max(2_048) });

/**
 * ThreatIntel over AlienVault OTX's DirectConnect API: one `general` section request per
 * indicator, turned into a verdict by the rules in verdict.ts. Pulse names and tags are
 * community text and travel as quoted data only.
 */
export class OtxThreatIntel implements ThreatIntel {
  readonly name = NAME;
  private readonly cache = new Map<string, { report: IntelReport; at: number }>();
  private readonly settings: Required<Omit<OtxThreatIntelOptions, "fetch" | "now">>;
  private readonly now: () => Date;
  private readonly fetch: typeof fetch;

  constructor(options: OtxThreatIntelOptions) {
    if (!options.apiKey.trim()) throw new ConfigError("the OTX API key is empty");
    this.settings = {
      apiKey: options.apiKey.trim(),
      baseUrl: (options.baseUrl ?? OTX_DEFAULTS.baseUrl).replace(/\/+$/, ""),
      timeoutMs: options.timeoutMs ?? OTX_DEFAULTS.timeoutMs,
      cacheTtlMs: options.cacheTtlMs ?? OTX_DEFAULTS.cacheTtlMs,
      rules: options.rules ?? OTX_RULES,
    };
    this.now = options.now ?? (() => new Date());
    this.fetch = options.fetch ?? fetch;
  }

  async lookup(raw: { type: IocType; value: string }, options: LookupOptions = {}): Promise<IntelReport> {
    const checked = LookupSchema.safeParse(raw);
    if (!checked.success)
      throw new InvalidInputError(`bad indicator: ${checked.error.issues[0]?.message ?? "invalid"}`);
    const indicator = checked.data;
    const target = otxTarget(indicator.type, indicator.value);
    if (target.kind === "skip") return this.unknown(indicator, target.reason);

    const key = `${target.section}:${target.value}`;
    const cached = this.cache.get(key);
    if (cached && this.now().getTime() - cached.at < this.settings.cacheTtlMs) return cached.report;

    const general = await this.fetchGeneral(target.section, target.value, options.signal);
    const report =
      general === undefined
        ? this.unknown(indicator, "OTX has no record of it")
        : this.report(indicator, target.section, general);
    this.remember(key, report);
    return report;
  }

  private async fetchGeneral(
    section: OtxSection,
    value: string,
    stepSignal: AbortSignal | undefined,
  ): Promise<OtxGeneral | undefined> {
    const url = `${this.settings.baseUrl}/api/v1/indicators/${section}/${encodeURIComponent(value)}/general`;
    let response: Response;
    try {
      response = await this.fetch(url, {
        headers: { "X-OTX-API-KEY": this.settings.apiKey, accept: "application/json" },
        signal: stepSignal
          ? AbortSignal.any([stepSignal, AbortSignal.timeout(this.settings.timeoutMs)])
          : AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (error) {
      // The step gave up: say so, not that OTX was slow.
      if (stepSignal?.aborted) throw stepSignal.reason;
      const timedOut =
        error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      throw new IntelProviderError(
        NAME,
        timedOut
          ? `no answer within ${this.settings.timeoutMs} ms`
          : `request failed: ${errorMessage(error)}`,
        true,
        { cause: error },
      );
    }
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok) throw await this.httpError(response);
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      // A proxy's HTML error page, or a cut connection: the next attempt may be fine.
      throw new IntelProviderError(NAME, "answered with a body that is not JSON", true, { cause: error });
    }
    return OtxGeneralSchema.parse(body ?? {});
  }

  private async httpError(response: Response): Promise<Error> {
    const text = quoteFeedText(await response.text().catch(() => ""), 200);
    const status = response.status;
    if (status === 401 || status === 403)
      return new ConfigError(`OTX rejected the API key (HTTP ${status}); check OTX_API_KEY`);
    if (status === 400)
      return new InvalidInputError(`OTX refused the indicator as malformed: ${text ?? "HTTP 400"}`);
    if (status === 429) {
      const retryAfter = Number(response.headers.get("retry-after"));
      return new IntelProviderError(NAME, "rate limited (HTTP 429)", true, {
        details: Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {},
      });
    }
    return new IntelProviderError(
      NAME,
      `HTTP ${status}${text ? `: ${text}` : ""}`,
      status >= 500 || status === 408,
    );
  }

  private report(
    indicator: { type: IocType; value: string },
    section: OtxSection,
    general: OtxGeneral,
  ): IntelReport {
    const { verdict, notes, current, stale, whitelistedBy } = assessOtx(general, {
      section,
      now: this.now().getTime(),
      rules: this.settings.rules,
    });
    const pulses = [...current, ...stale];
    // OTX's aggregate spans every pulse, stale ones too: it only counts when a current pulse does.
    const related = current.length > 0 ? general.pulse_info.related : undefined;
    const families = [
      ...current.flatMap((p) => p.malware_families),
      ...(related?.alienvault?.malware_families ?? []),
      ...(related?.other?.malware_families ?? []),
    ];
    const adversaries = [
      ...current.flatMap((p) => (p.adversary ? [p.adversary] : [])),
      ...(related?.alienvault?.adversary ?? []),
      ...(related?.other?.adversary ?? []),
    ];
    const created = pulses.map((p) => otxTime(p.created)).filter((t): t is number => t !== undefined);
    const modified = pulses
      .map((p) => otxTime(p.modified) ?? otxTime(p.created))
      .filter((t): t is number => t !== undefined);
    const count = Math.max(general.pulse_info.count ?? 0, pulses.length);
    return IntelReportSchema.parse({
      indicator,
      verdict,
      sources: [
        NAME,
        ...uniqueCapped(
          pulses.map((p) => `OTX pulse: ${p.name ?? p.id}`),
          MAX_SOURCES - 1,
          160,
        ),
      ],
      tags: uniqueCapped(
        [
          ...(whitelistedBy.length > 0 ? ["otx-whitelisted"] : []),
          ...(stale.length > 0 && current.length === 0 && verdict !== "benign" ? ["stale-intel"] : []),
          ...families.map((f) => `malware:${f}`),
          ...current.flatMap((p) => p.attack_ids),
          ...current.flatMap((p) => p.tags.map((t) => t.toLowerCase())),
        ],
        MAX_TAGS,
        80,
      ),
      ...(created.length > 0 ? { firstSeen: new Date(Math.min(...created)).toISOString() } : {}),
      ...(modified.length > 0 ? { lastSeen: new Date(Math.max(...modified)).toISOString() } : {}),
      description: quoteFeedText(
        `OTX ${section}: ${count} pulse(s), ${current.length} current; ${notes.join("; ")}.`,
        2_000,
      ),
      related: uniqueCapped([...families, ...adversaries], MAX_RELATED, 120),
    });
  }

  private unknown(indicator: { type: IocType; value: string }, why: string): IntelReport {
    return IntelReportSchema.parse({
      indicator,
      verdict: "unknown",
      sources: [NAME],
      tags: [],
      description: `OTX: ${why}.`,
      related: [],
    });
  }

  private remember(key: string, report: IntelReport): void {
    this.cache.set(key, { report, at: this.now().getTime() });
    while (this.cache.size > CACHE_SIZE) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }
}
