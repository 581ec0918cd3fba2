import type { SqlParam } from "../../ports/log-warehouse.js";
import type { Job, QueryJobInsert, QueryParameter } from "./rest.js";

export interface QueryJobSpec {
  sql: string;
  params: Readonly<Record<string, SqlParam>>;
  labels: Readonly<Record<string, string>>;
  maximumBytesBilled: number;
  jobTimeoutMs: number;
}

/**
 * Typed named parameters. Strings stay STRING even when they look like timestamps:
 * GoogleSQL coerces a STRING parameter where a TIMESTAMP is expected (and the runbooks
 * CAST explicitly), while a TIMESTAMP parameter compared with a STRING column would fail.
 */
export function queryParameters(params: Readonly<Record<string, SqlParam>>): QueryParameter[] {
  return Object.keys(params)
    .sort()
    .map((name) => {
      const value = params[name]!;
      const type =
        typeof value === "boolean"
          ? "BOOL"
          : typeof value === "number"
            ? Number.isSafeInteger(value)
              ? "INT64"
              : "FLOAT64"
            : "STRING";
      return { name, parameterType: { type }, parameterValue: { value: String(value) } };
    });
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

/** The jobs.insert body; the dry run is the same job with `dryRun`, so it prices what will run. */
export function queryJobBody(
  spec: QueryJobSpec,
  job: { dryRun: true; projectId: string } | { dryRun: false; projectId: string; jobId: string },
): QueryJobInsert {
  return {
    ...(job.dryRun ? {} : { jobReference: { projectId: job.projectId, jobId: job.jobId } }),
    configuration: {
      ...(job.dryRun ? { dryRun: true } : {}),
      jobTimeoutMs: String(spec.jobTimeoutMs),
      labels: { ...spec.labels },
      query: {
        query: spec.sql,
        useLegacySql: false,
        parameterMode: "NAMED",
        queryParameters: queryParameters(spec.params),
        maximumBytesBilled: String(spec.maximumBytesBilled),
        useQueryCache: true,
      },
    },
  };
}

/** True when a job ran exactly this statement with exactly these parameters, for ferret. */
export function jobRan(job: Job, sql: string, params: Readonly<Record<string, SqlParam>>): boolean {
  const query = job.configuration?.query;
  if (job.configuration?.dryRun || job.configuration?.labels?.app !== "ferret") return false;
  if (query?.query !== sql) return false;
  const key = (p: QueryParameter) => JSON.stringify([p.name, p.parameterType.type, p.parameterValue.value]);
  const ran = (query.queryParameters ?? []).map(key).sort();
  const asked = queryParameters(params).map(key).sort();
  return ran.length === asked.length && ran.every((k, i) => k === asked[i]);
}
