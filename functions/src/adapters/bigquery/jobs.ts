import type { Query } from "@google-cloud/bigquery";
import type { SqlParam } from "../../ports/log-warehouse.js";
import type { JobMetadata, QueryParameter } from "./resources.js";

export interface QueryJobSpec {
  sql: string;
  params: Readonly<Record<string, SqlParam>>;
  labels: Readonly<Record<string, string>>;
  maximumBytesBilled: number;
  jobTimeoutMs: number;
}

/** Prefix of every job id ferret creates; the library appends a random UUID. */
export const JOB_PREFIX = "ferret_";

/**
 * The type each named parameter is sent with. Strings stay STRING even when they look
 * like timestamps: GoogleSQL coerces a STRING parameter where a TIMESTAMP is expected (and
 * the runbooks CAST explicitly), while a TIMESTAMP parameter compared with a STRING column
 * would fail. An integer beyond 2^53 is not exact in JavaScript, so it goes as FLOAT64
 * rather than as an INT64 that is not the number the caller meant.
 */
function parameterType(value: SqlParam): "BOOL" | "INT64" | "FLOAT64" | "STRING" {
  if (typeof value === "boolean") return "BOOL";
  if (typeof value === "number") return Number.isSafeInteger(value) ? "INT64" : "FLOAT64";
  return "STRING";
}

/**
 * The client library's query-job options. The dry run is the same job with `dryRun`, so
 * it prices exactly what will run. Values go as the REST API's decimal strings with an
 * explicit type, so the job's recorded parameters compare equal to ours (jobRan).
 * Without a jobId of ours the library answers a retried insert's 409 by fetching the job
 * its first attempt created, instead of running the query twice.
 */
export function queryJobOptions(spec: QueryJobSpec, mode: { dryRun: boolean }): Query {
  const names = Object.keys(spec.params).sort();
  return {
    query: spec.sql,
    useLegacySql: false,
    useQueryCache: true,
    params: Object.fromEntries(names.map((name) => [name, String(spec.params[name])])),
    types: Object.fromEntries(names.map((name) => [name, parameterType(spec.params[name]!)])),
    maximumBytesBilled: String(spec.maximumBytesBilled),
    jobTimeoutMs: spec.jobTimeoutMs,
    labels: { ...spec.labels },
    ...(mode.dryRun ? { dryRun: true } : { jobPrefix: JOB_PREFIX }),
  };
}

const LABEL_MAX = 63;

/**
 * BigQuery labels: keys and values of lowercase letters, digits, `_` and `-`, at most 63
 * characters, keys starting with a letter. Anything else is folded into that alphabet
 * rather than rejected, so a runbook or investigation id never fails a query.
 */
export function sanitizeLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  const fold = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9_-]/g, "_")
      .slice(0, LABEL_MAX);
  const out: Record<string, string> = {};
  for (const [rawKey, rawValue] of Object.entries(labels)) {
    const key = fold(rawKey);
    if (!/^[a-z]/.test(key)) continue;
    out[key] = fold(rawValue);
  }
  return out;
}

/** True when a job ran exactly this statement with exactly these parameters, for ferret. */
export function jobRan(job: JobMetadata, sql: string, params: Readonly<Record<string, SqlParam>>): boolean {
  const query = job.configuration?.query;
  if (job.configuration?.dryRun || job.configuration?.labels?.app !== "ferret") return false;
  if (query?.query !== sql) return false;
  const key = (p: QueryParameter) =>
    JSON.stringify([p.name, p.parameterType.type, String(p.parameterValue.value)]);
  const ran = (query.queryParameters ?? []).map(key).sort();
  const asked = Object.entries(params)
    .map(([name, value]) =>
      key({ name, parameterType: { type: parameterType(value) }, parameterValue: { value: String(value) } }),
    )
    .sort();
  return ran.length === asked.length && ran.every((k, i) => k === asked[i]);
}
