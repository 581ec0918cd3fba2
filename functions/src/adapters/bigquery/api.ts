import { BigQuery, type BigQueryOptions } from "@google-cloud/bigquery";
import { z } from "zod";
import { StorageError } from "../../domain/errors.js";
import {
  type Job,
  type JobReference,
  JobSchema,
  type QueryJobInsert,
  type QueryResults,
  QueryResultsSchema,
  type Table,
  type TableList,
  TableListSchema,
  TableSchema,
} from "./rest.js";

/**
 * The five REST calls the warehouse makes, as plain promises of validated JSON. Jobs run
 * (and are billed) in `jobProject`; the log dataset may live in another project.
 */
export interface BigQueryApi {
  insertJob(body: QueryJobInsert): Promise<Job>;
  getJob(ref: JobReference): Promise<Job>;
  getQueryResults(ref: JobReference, page: ResultsPage): Promise<QueryResults>;
  cancelJob(ref: JobReference): Promise<void>;
  listTables(pageToken?: string): Promise<TableList>;
  getTable(tableId: string): Promise<Table>;
}

export interface ResultsPage {
  startIndex?: number;
  pageToken?: string;
  maxResults: number;
  /** How long the server may hold the call waiting for the job to finish. */
  waitMs: number;
}

export interface BigQueryApiOptions {
  /** Project that runs and pays for the jobs. */
  jobProject: string;
  /** Project and dataset of the log tables. */
  dataProject: string;
  dataset: string;
  /** Another endpoint than https://bigquery.googleapis.com (tests: a local server). */
  apiEndpoint?: string;
  /** Credentials other than ADC (tests: a client holding a static token). */
  authClient?: BigQueryOptions["authClient"];
  /** Retries of 429/5xx/rate-limit answers inside the client library, with its backoff. */
  maxRetries?: number;
}

type RequestOptions = Parameters<BigQuery["request"]>[0];

/**
 * The client library supplies what is tedious to get right (credentials, the endpoint,
 * retries with backoff on 429/5xx/rateLimitExceeded, user agent); request bodies and
 * response parsing stay here, so what is sent is exactly what the REST reference says.
 */
export function createBigQueryApi(options: BigQueryApiOptions): BigQueryApi {
  const client = new BigQuery({
    projectId: options.jobProject,
    ...(options.apiEndpoint ? { apiEndpoint: options.apiEndpoint } : {}),
    ...(options.authClient ? { authClient: options.authClient } : {}),
    retryOptions: { autoRetry: (options.maxRetries ?? 2) > 0, maxRetries: options.maxRetries ?? 2 },
  });
  const call = <S extends z.ZodType>(request: RequestOptions, schema: S): Promise<z.infer<S>> =>
    new Promise((resolve, reject) => {
      client.request(request, (error: unknown, body: unknown) => {
        if (error) {
          reject(error);
          return;
        }
        const parsed = schema.safeParse(body ?? {});
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          reject(
            new StorageError(
              `BigQuery answered ${request.uri} with an unexpected shape (${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"})`,
              false,
            ),
          );
          return;
        }
        resolve(parsed.data);
      });
    });
  const jobPath = (ref: JobReference) => `/jobs/${encodeURIComponent(ref.jobId)}`;
  const location = (ref: JobReference) => (ref.location ? { location: ref.location } : {});
  const tables = `/datasets/${encodeURIComponent(options.dataset)}/tables`;

  return {
    insertJob: (body) => call({ method: "POST", uri: "/jobs", json: body }, JobSchema),
    getJob: (ref) => call({ uri: jobPath(ref), qs: location(ref) }, JobSchema),
    getQueryResults: (ref, page) =>
      call(
        {
          uri: `/queries/${encodeURIComponent(ref.jobId)}`,
          qs: {
            ...location(ref),
            maxResults: page.maxResults,
            timeoutMs: page.waitMs,
            // Timestamps as int64 microseconds: exact, unlike the default float seconds.
            "formatOptions.useInt64Timestamp": true,
            ...(page.pageToken !== undefined ? { pageToken: page.pageToken } : {}),
            ...(page.pageToken === undefined && page.startIndex !== undefined
              ? { startIndex: String(page.startIndex) }
              : {}),
          },
        },
        QueryResultsSchema,
      ),
    cancelJob: async (ref) => {
      await call({ method: "POST", uri: `${jobPath(ref)}/cancel`, qs: location(ref) }, z.looseObject({}));
    },
    listTables: (pageToken) =>
      call(
        {
          uri: tables,
          projectId: options.dataProject,
          qs: { maxResults: 1000, ...(pageToken ? { pageToken } : {}) },
        },
        TableListSchema,
      ),
    getTable: (tableId) =>
      call({ uri: `${tables}/${encodeURIComponent(tableId)}`, projectId: options.dataProject }, TableSchema),
  };
}
