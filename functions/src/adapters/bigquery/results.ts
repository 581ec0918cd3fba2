import type { Job } from "@google-cloud/bigquery";
import { DeadlineExceededError, FerretError } from "../../domain/errors.js";
import { QueryTimeoutError } from "../../sql/query-errors.js";
import { parseResource, type QueryResults, QueryResultsSchema, type Row } from "./resources.js";

export interface ReadSettings {
  /** How long one getQueryResults call may wait for the job on the server. */
  pollWaitMs: number;
  /** Epoch ms past which the client stops waiting and cancels the job. */
  deadline: number;
  /** The job's own time budget, for the timeout's message. */
  timeoutMs: number;
  now: () => number;
  /** The calling step's deadline: when it fires, the job is cancelled, not left running. */
  signal?: AbortSignal | undefined;
}

interface ResultsCall {
  /** uint64 as a decimal string, as the REST API (and the library's type) takes it. */
  startIndex?: string;
  pageToken?: string;
  maxResults: number;
  timeoutMs: number;
}

/**
 * Rows [startIndex, startIndex + maxResults) of a job's result, waiting for the job to
 * finish. A page larger than BigQuery's response size limit arrives in parts chained by
 * pageToken; they are joined. Rows stay in the REST wire format (`skipParsing`): values.ts
 * renders them as the DuckDB adapter does, which the library's own types would not.
 */
export async function readRows(
  job: Job,
  page: { startIndex: number; maxResults: number },
  settings: ReadSettings,
): Promise<{ results: QueryResults; rows: Row[] }> {
  // maxResults 0 would make the library's paginator fetch every page.
  const want = Math.max(1, page.maxResults);
  const results = await waitForResults(
    job,
    { startIndex: String(page.startIndex), maxResults: want },
    settings,
  );
  const rows: Row[] = [...(results.rows ?? [])];
  let next = results.pageToken;
  while (rows.length < want && next) {
    const part = await untilAborted(
      job,
      fetchResults(job, { pageToken: next, maxResults: want - rows.length, timeoutMs: settings.pollWaitMs }),
      settings.signal,
    );
    rows.push(...(part.rows ?? []));
    next = part.pageToken;
  }
  return { results, rows: rows.slice(0, page.maxResults) };
}

/** Long-polls getQueryResults until the job is done, past its time budget, or aborted. */
async function waitForResults(
  job: Job,
  page: { startIndex: string; maxResults: number },
  settings: ReadSettings,
): Promise<QueryResults> {
  for (;;) {
    const remaining = settings.deadline - settings.now();
    if (remaining <= 0) {
      // Best effort: the job's own jobTimeoutMs ends it anyway.
      await cancelQuietly(job);
      throw new QueryTimeoutError(settings.timeoutMs);
    }
    const timeoutMs = Math.max(1, Math.min(settings.pollWaitMs, remaining));
    const results = await untilAborted(job, fetchResults(job, { ...page, timeoutMs }), settings.signal);
    if (results.jobComplete !== false) return results;
    // The server already waited timeoutMs; a short pause keeps a fast-answering fake from spinning.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(250, Math.max(0, settings.deadline - settings.now()))),
    );
  }
}

/**
 * One getQueryResults call, answered raw. With `timeoutMs` the library reports a job
 * still running as an error; the answer it carries (jobComplete: false) is what the caller
 * needs to keep waiting, so it is resolved, not thrown.
 */
function fetchResults(job: Job, call: ResultsCall): Promise<QueryResults> {
  return new Promise((resolve, reject) => {
    job.getQueryResults({ ...call, skipParsing: true }, (error, _rows, _next, response) => {
      if (error && response?.jobComplete !== false) {
        reject(error);
        return;
      }
      try {
        resolve(parseResource(QueryResultsSchema, response, "query results"));
      } catch (invalid) {
        reject(invalid);
      }
    });
  });
}

/** `work`, unless the signal fires first: then the job is cancelled and the step's reason thrown. */
async function untilAborted<T>(job: Job, work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  work.catch(() => undefined); // an abandoned call must not surface as an unhandled rejection
  if (signal.aborted) return abandon(job, signal);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => abandon(job, signal).catch(reject);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** Cancels the job (a running scan keeps billing otherwise) and throws why it was abandoned. */
export async function abandon(job: Job, signal: AbortSignal): Promise<never> {
  await cancelQuietly(job);
  throw abortReason(signal);
}

/** The step's own reason when it gave one; otherwise a deadline error (never retried). */
export function abortReason(signal: AbortSignal): FerretError {
  const reason: unknown = signal.reason;
  return reason instanceof FerretError
    ? reason
    : new DeadlineExceededError(
        "the step's deadline passed while the query ran; no BigQuery job is left running",
      );
}

/** One cancel per job: a poll in flight and the abort listener may both give up on it. */
const cancelling = new WeakMap<Job, Promise<void>>();

function cancelQuietly(job: Job): Promise<void> {
  let pending = cancelling.get(job);
  if (!pending) {
    pending = job.cancel().then(
      () => undefined,
      () => undefined,
    );
    cancelling.set(job, pending);
  }
  return pending;
}
