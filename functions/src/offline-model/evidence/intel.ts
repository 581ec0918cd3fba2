import { IocTypeSchema } from "../../domain/ioc.js";
import type { IntelEvidence } from "./types.js";

const VERDICTS = new Set(["malicious", "suspicious", "benign", "unknown"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string").slice(0, 20) : [];
}

function reportOf(value: Record<string, unknown>): IntelEvidence | undefined {
  const indicator = isRecord(value.indicator) ? value.indicator : value;
  const type = IocTypeSchema.safeParse(indicator.type);
  const verdict = typeof value.verdict === "string" ? value.verdict.toLowerCase() : undefined;
  if (!type.success || typeof indicator.value !== "string" || !verdict || !VERDICTS.has(verdict))
    return undefined;
  return {
    kind: "intel",
    type: type.data,
    value: indicator.value,
    verdict: verdict as IntelEvidence["verdict"],
    tags: strings(value.tags).map((t) => t.toLowerCase()),
    sources: strings(value.sources),
    related: strings(value.related),
  };
}

/** Finds intel reports ({indicator:{type,value}, verdict, tags, …}) wherever the tool put them. */
export function intelReportsOf(data: unknown, depth = 0): IntelEvidence[] {
  if (depth > 3) return [];
  if (Array.isArray(data)) return data.flatMap((d) => intelReportsOf(d, depth + 1));
  if (!isRecord(data)) return [];
  const own = reportOf(data);
  if (own) return [own];
  return Object.values(data).flatMap((v) =>
    Array.isArray(v) || isRecord(v) ? intelReportsOf(v, depth + 1) : [],
  );
}

const MINING = /min(ing|er)|pool|stratum|xmr|monero|coin/i;
const ANONYMIZER = /\btor\b|tor[-_ ]?exit|anonymi[sz]|proxy|vpn|relay/i;
const SINKHOLE = /sinkhole/i;
const SCANNER = /scanner|scanning|research|crawler|shodan|censys|benign[-_ ]?bot/i;
/** Addresses many unrelated parties share (a CDN edge, shared hosting): a connection there says little. */
const SHARED = /shared[-_ ]?(infrastructure|infra|hosting|address|ip)|\bcdn\b|content[-_ ]?delivery/i;

export function intelHas(
  report: IntelEvidence,
  pattern: "mining" | "anonymizer" | "sinkhole" | "scanner" | "shared",
): boolean {
  const re = { mining: MINING, anonymizer: ANONYMIZER, sinkhole: SINKHOLE, scanner: SCANNER, shared: SHARED }[
    pattern
  ];
  return [...report.tags, ...report.related].some((t) => re.test(t));
}

export function isBad(report: IntelEvidence): boolean {
  return report.verdict === "malicious" || report.verdict === "suspicious";
}
