import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { z } from "zod";
import { ConfigError, InvalidInputError } from "../../domain/errors.js";
import { type IocType, IocTypeSchema } from "../../domain/ioc.js";
import { type IntelReport, IntelReportSchema, type ThreatIntel } from "../../ports/threat-intel.js";
import { breadthProblem } from "./breadth.js";
import {
  RELATED_TYPES,
  StixBundleSchema,
  type StixIndicator,
  StixIndicatorSchema,
  type StixNamed,
  StixNamedSchema,
  type StixOpinion,
  StixOpinionSchema,
  StixRelationshipSchema,
} from "./bundle.js";
import { exactKeys, normalizeObservable, type Observable, patternMatches } from "./observable.js";
import { comparisonsOf, type PatternNode, PatternSyntaxError, parsePattern } from "./pattern.js";
import { assessIndicator, combineAssessments, FUTURE_SKEW_MS } from "./verdict.js";

export interface StixThreatIntelOptions {
  /** Shown as the report's source; defaults to stix:<file name>. */
  name?: string;
  /** The clock that decides whether valid_until has passed. */
  now?: () => Date;
}

interface LoadedIndicator {
  indicator: StixIndicator;
  pattern: PatternNode;
}

const LookupSchema = z.object({ type: IocTypeSchema, value: z.string().trim().min(1).max(2_048) });
const MAX_DESCRIPTION = 2_000;
const MAX_LIST = 20;
/** Comparisons one pattern may hold; a longer one is a data dump, not an indicator. */
const MAX_COMPARISONS = 1_000;
const ALL_TYPES: readonly IocType[] = IocTypeSchema.options;

/** Feed text is attacker-influenced: keep it printable and bounded, never act on it. */
function quoteFeedText(text: string | undefined, max: number): string | undefined {
  if (!text) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const clean = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, " ").trim();
  if (clean.length === 0) return undefined;
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

function uniqueCapped(values: Iterable<string>): string[] {
  return [
    ...new Set([...values].map((v) => quoteFeedText(v, 200)).filter((v): v is string => v !== undefined)),
  ].slice(0, MAX_LIST);
}

/**
 * ThreatIntel over a STIX 2.1 bundle file (what MISP and OpenCTI export). Indicators are
 * matched by their STIX patterns (see pattern.ts for the supported subset); related
 * malware, campaigns and actors come from `indicates` relationships; opinions confirm or
 * dispute indicators. Indicators whose pattern cannot be used are skipped and counted.
 */
export class StixThreatIntel implements ThreatIntel {
  readonly name: string;
  private readonly now: () => Date;
  private readonly indicators: LoadedIndicator[] = [];
  private readonly exact = new Map<string, Set<number>>();
  private readonly scanned = new Set<number>();
  private readonly named = new Map<string, StixNamed>();
  private readonly producers = new Map<string, string>();
  private readonly indicates = new Map<string, string[]>();
  private readonly opinions = new Map<string, StixOpinion[]>();
  private readonly skipped: Array<{ id: string; reason: string }> = [];
  private readonly specVersion: string;

  static fromFile(path: string, options: StixThreatIntelOptions = {}): StixThreatIntel {
    let bundle: unknown;
    try {
      bundle = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      throw new ConfigError(
        `cannot read STIX bundle ${path}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return new StixThreatIntel(bundle, { name: `stix:${basename(path)}`, ...options });
  }

  constructor(bundle: unknown, options: StixThreatIntelOptions = {}) {
    this.name = options.name ?? "stix";
    this.now = options.now ?? (() => new Date());
    const parsed = StixBundleSchema.safeParse(bundle);
    if (!parsed.success)
      throw new ConfigError(`not a STIX 2.0/2.1 bundle: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    // STIX 2.0 puts spec_version on the bundle and "labels" where 2.1 has indicator_types;
    // both are read the same way (verdict.ts reads either).
    this.specVersion =
      parsed.data.spec_version ??
      (parsed.data.objects.find((o) => typeof o.spec_version === "string")?.spec_version as
        | string
        | undefined) ??
      "2.1";
    for (const object of this.latestVersions(parsed.data.objects)) this.load(object);
  }

  /** How much of the bundle is usable; skipped entries say why. */
  stats(): {
    specVersion: string;
    indicators: number;
    skipped: ReadonlyArray<{ id: string; reason: string }>;
  } {
    return { specVersion: this.specVersion, indicators: this.indicators.length, skipped: this.skipped };
  }

  /**
   * A bundle may carry several versions of one object (same id, different `modified`); the
   * newest is the object. A version dated in the future cannot supersede the others — that
   * is how one hostile entry would overwrite a listing — so it is skipped.
   */
  private latestVersions<T extends { id: string; modified?: unknown; created?: unknown }>(
    objects: readonly T[],
  ): T[] {
    const limit = this.now().getTime() + FUTURE_SKEW_MS;
    const timeOf = (o: T) => {
      const t = Date.parse(String(o.modified ?? o.created ?? ""));
      return Number.isNaN(t) ? 0 : t;
    };
    const latest = new Map<string, T>();
    const seen = new Map<string, number>();
    for (const object of objects) seen.set(object.id, (seen.get(object.id) ?? 0) + 1);
    for (const object of objects) {
      if ((seen.get(object.id) ?? 0) > 1 && timeOf(object) > limit) {
        this.skipped.push({
          id: object.id,
          reason: "a version dated in the future cannot supersede the others",
        });
        continue;
      }
      const previous = latest.get(object.id);
      if (!previous || timeOf(object) > timeOf(previous)) latest.set(object.id, object);
    }
    return objects.filter((o) => latest.get(o.id) === o);
  }

  private load(object: Record<string, unknown> & { type: string; id: string }): void {
    if (object.revoked === true) {
      if (object.type === "indicator") this.skipped.push({ id: object.id, reason: "revoked" });
      return;
    }
    switch (object.type) {
      case "indicator":
        this.loadIndicator(object);
        return;
      case "relationship": {
        const rel = StixRelationshipSchema.safeParse(object);
        if (rel.success && rel.data.relationship_type === "indicates") {
          this.indicates.set(rel.data.source_ref, [
            ...(this.indicates.get(rel.data.source_ref) ?? []),
            rel.data.target_ref,
          ]);
        }
        return;
      }
      case "opinion": {
        const opinion = StixOpinionSchema.safeParse(object);
        if (opinion.success) {
          for (const ref of opinion.data.object_refs)
            this.opinions.set(ref, [...(this.opinions.get(ref) ?? []), opinion.data]);
        }
        return;
      }
      case "identity": {
        const identity = StixNamedSchema.safeParse(object);
        if (identity.success) this.producers.set(identity.data.id, identity.data.name);
        return;
      }
      default: {
        if (!RELATED_TYPES.has(object.type)) return;
        const named = StixNamedSchema.safeParse(object);
        if (named.success) this.named.set(named.data.id, named.data);
      }
    }
  }

  private loadIndicator(object: { id: string }): void {
    const parsed = StixIndicatorSchema.safeParse(object);
    if (!parsed.success) {
      this.skipped.push({
        id: object.id,
        reason: `invalid indicator: ${parsed.error.issues[0]?.message ?? "?"}`,
      });
      return;
    }
    const indicator = parsed.data;
    if (indicator.pattern_type !== undefined && indicator.pattern_type !== "stix") {
      this.skipped.push({
        id: indicator.id,
        reason: `pattern_type ${indicator.pattern_type} is not evaluated`,
      });
      return;
    }
    let pattern: PatternNode;
    try {
      pattern = parsePattern(indicator.pattern);
    } catch (error) {
      const reason = error instanceof PatternSyntaxError ? error.message : String(error);
      this.skipped.push({ id: indicator.id, reason: `unsupported pattern: ${reason}` });
      return;
    }
    if (comparisonsOf(pattern).length > MAX_COMPARISONS) {
      this.skipped.push({ id: indicator.id, reason: `too broad: more than ${MAX_COMPARISONS} comparisons` });
      return;
    }
    const broad = breadthProblem(pattern);
    if (broad) {
      this.skipped.push({ id: indicator.id, reason: `too broad: ${broad}` });
      return;
    }
    const index = this.indicators.push({ indicator, pattern }) - 1;
    for (const comparison of comparisonsOf(pattern)) {
      for (const type of ALL_TYPES) {
        const keys = exactKeys(type, comparison);
        if (keys === "scan") this.scanned.add(index);
        else for (const key of keys) this.exact.set(key, (this.exact.get(key) ?? new Set()).add(index));
      }
    }
  }

  async lookup(raw: { type: IocType; value: string }): Promise<IntelReport> {
    const checked = LookupSchema.safeParse(raw);
    if (!checked.success)
      throw new InvalidInputError(`bad indicator: ${checked.error.issues[0]?.message ?? "invalid"}`);
    const observable: Observable = {
      type: checked.data.type,
      value: normalizeObservable(checked.data.type, checked.data.value),
    };
    const candidates = new Set([
      ...(this.exact.get(`${observable.type}:${observable.value}`) ?? []),
      ...this.scanned,
    ]);
    const matched = [...candidates]
      .sort((a, b) => a - b)
      .map((i) => this.indicators[i]!)
      .filter((loaded) => patternMatches(loaded.pattern, observable));

    const now = this.now().getTime();
    const assessments = matched.map(({ indicator }) =>
      assessIndicator(indicator, {
        opinions: this.opinions.get(indicator.id) ?? [],
        indicatesSomething: (this.indicates.get(indicator.id) ?? []).some((ref) => this.named.has(ref)),
        now,
      }),
    );
    const { verdict, deciding, conflicting, retracted } = combineAssessments(assessments);
    const related = matched.flatMap(({ indicator }) =>
      (this.indicates.get(indicator.id) ?? []).flatMap((ref) => this.named.get(ref) ?? []),
    );
    const producers = matched.flatMap(({ indicator }) => {
      const producer = indicator.created_by_ref ? this.producers.get(indicator.created_by_ref) : undefined;
      return producer ? [producer] : [];
    });
    const validFrom = matched
      .map(({ indicator }) => indicator.valid_from)
      .filter((v): v is string => v !== undefined)
      .sort();
    const modified = matched
      .map(({ indicator }) => indicator.modified ?? indicator.created)
      .filter((v): v is string => v !== undefined)
      .sort();

    return IntelReportSchema.parse({
      indicator: { type: checked.data.type, value: checked.data.value },
      verdict,
      sources: matched.length > 0 ? uniqueCapped([this.name, ...producers]) : [this.name],
      tags: uniqueCapped([
        ...matched.flatMap(({ indicator }) => [
          ...(indicator.indicator_types ?? []),
          ...(indicator.labels ?? []),
        ]),
        ...related.flatMap((r) => r.malware_types ?? []),
        ...assessments.flatMap((a) => a.notes),
        ...(conflicting ? ["conflicting-intel"] : []),
        ...(retracted > 0 ? [`retracted by its producer (${retracted})`] : []),
      ]),
      ...(validFrom[0] ? { firstSeen: validFrom[0] } : {}),
      ...(modified.length > 0 ? { lastSeen: modified[modified.length - 1] } : {}),
      ...(deciding
        ? {
            description: quoteFeedText(
              deciding.indicator.description ?? deciding.indicator.name,
              MAX_DESCRIPTION,
            ),
          }
        : {}),
      related: uniqueCapped(related.map((r) => r.name)),
    });
  }
}
