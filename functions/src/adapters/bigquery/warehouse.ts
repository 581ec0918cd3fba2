import type { BigQuery, Job } from "@google-cloud/bigquery";
import {
  ConfigError,
  FerretError,
  InvalidInputError,
  NotFoundError,
  StorageError,
} from "../../domain/errors.js";
import type {
  LogWarehouse,
  QueryRequest,
  QueryResult,
  SqlParam,
  TableInfo,
} from "../../ports/log-warehouse.js";
import { guardSql } from "../../sql/guard.js";
import { LOG_TABLES, type LogTableDef } from "../../sql/log-schema.js";
import { queryFingerprint } from "../../sql/page-token.js";
import { bigQueryTarget, type SqlTarget } from "../../sql/targets.js";
import { type BigQueryClientOptions, createBigQueryClient } from "./client.js";
import { checkDryRun } from "./dry-run-check.js";
import { type ErrorContext, ScanCapExceededError, toWarehouseError } from "./errors.js";
import { jobRan, type QueryJobSpec, queryJobOptions, sanitizeLabels } from "./jobs.js";
import { DatasetTables } from "./metadata.js";
import { decodeJobPageToken, encodeJobPageToken } from "./page-token.js";
import { JobSchema, parseResource } from "./resources.js";
import { abandon, abortReason, readRows } from "./results.js";
import { rowsToJson } from "./values.js";

export interface BigQueryWarehouseOptions {
  /** Project and dataset of the Cloud Logging sink: the only dataset queries may read. */
  dataProject: string;
  dataset: string;
  /** Project that runs and pays for query jobs; defaults to dataProject. */
  jobProject?: string;
  /** Scan cap per statement: the dry run refuses above it and the job is created with it. */
  maximumBytesBilled: number;
  /** Rows kept per query; more makes the result `truncated`. */
  maxRows?: number;
  defaultPageSize?: number;
  maxPageSize?: number;
  /** Server-side job time budget (jobTimeoutMs); the client stops waiting shortly after. */
  timeoutMs?: number;
  /** Labels on every job, besides app=ferret and the request's own. */
  labels?: Record<string, string>;
  logTables?: readonly LogTableDef[];
  /** How long table lists and schemas are reused. */
  metadataTtlMs?: number;
  /** How long one getQueryResults call may wait for the job on the server. */
  pollWaitMs?: number;
  /** Past the job's own timeout, how long the client keeps waiting for BigQuery to report it. */
  clientGraceMs?: number;
  /** Client options when `client` is not given. */
  apiEndpoint?: BigQueryClientOptions["apiEndpoint"];
  authClient?: BigQueryClientOptions["authClient"];
  maxRetries?: BigQueryClientOptions["maxRetries"];
  /** A ready client library instance (a shared client). */
  client?: BigQuery;
  now?: () => number;
}

export const BIGQUERY_WAREHOUSE_DEFAULTS = {
  maxRows: 1_000,
  defaultPageSize: 50,
  maxPageSize: 500,
  timeoutMs: 30_000,
  metadataTtlMs: 10 * 60_000,
  pollWaitMs: 10_000,
  clientGraceMs: 5_000,
} as const;

const NAME = /^[A-Za-z0-9_-]{1,1024}$/;

/**
 * The production LogWarehouse, on the BigQuery client library (decision 0027). Every
 * statement passes the SQL guard (one SELECT over the sink dataset's tables, qualified as
 * `project.dataset.table`, LIMIT enforced), then a dry run that prices it and says what
 * the engine reads, and only then the job, which carries maximumBytesBilled, jobTimeoutMs
 * and labels. Results are read from the finished job page by page; a job still running
 * when the caller's signal fires is cancelled.
 */
export class BigQueryLogWarehouse implements LogWarehouse {
  readonly dialect = "bigquery" as const;
  private readonly client: BigQuery;
  private readonly tables: DatasetTables;
  private readonly target: SqlTarget;
  private readonly settings: Required<
    Pick<
      BigQueryWarehouseOptions,
      | "dataProject"
      | "dataset"
      | "jobProject"
      | "maximumBytesBilled"
      | "maxRows"
      | "defaultPageSize"
      | "maxPageSize"
      | "timeoutMs"
      | "labels"
      | "pollWaitMs"
      | "clientGraceMs"
    >
  >;
  private readonly now: () => number;
  private closed = false;

  constructor(options: BigQueryWarehouseOptions) {
    if (!NAME.test(options.dataProject) || !NAME.test(options.dataset))
      throw new ConfigError(
        `BigQuery log dataset "${options.dataProject}.${options.dataset}" is not a valid project.dataset`,
      );
    if (!Number.isSafeInteger(options.maximumBytesBilled) || options.maximumBytesBilled < 1)
      throw new ConfigError("maximumBytesBilled must be a positive whole number of bytes");
    const jobProject = options.jobProject ?? options.dataProject;
    this.settings = {
      dataProject: options.dataProject,
      dataset: options.dataset,
      jobProject,
      maximumBytesBilled: options.maximumBytesBilled,
      maxRows: options.maxRows ?? BIGQUERY_WAREHOUSE_DEFAULTS.maxRows,
      defaultPageSize: options.defaultPageSize ?? BIGQUERY_WAREHOUSE_DEFAULTS.defaultPageSize,
      maxPageSize: options.maxPageSize ?? BIGQUERY_WAREHOUSE_DEFAULTS.maxPageSize,
      timeoutMs: options.timeoutMs ?? BIGQUERY_WAREHOUSE_DEFAULTS.timeoutMs,
      labels: options.labels ?? {},
      pollWaitMs: options.pollWaitMs ?? BIGQUERY_WAREHOUSE_DEFAULTS.pollWaitMs,
      clientGraceMs: options.clientGraceMs ?? BIGQUERY_WAREHOUSE_DEFAULTS.clientGraceMs,
    };
    this.now = options.now ?? Date.now;
    this.client =
      options.client ??
      createBigQueryClient({
        jobProject,
        apiEndpoint: options.apiEndpoint,
        authClient: options.authClient,
        maxRetries: options.maxRetries,
      });
    // The log dataset may live in another project than the one that runs the jobs.
    this.tables = new DatasetTables(
      this.client.dataset(options.dataset, { projectId: options.dataProject }),
      {
        logTables: options.logTables ?? LOG_TABLES,
        ttlMs: options.metadataTtlMs ?? BIGQUERY_WAREHOUSE_DEFAULTS.metadataTtlMs,
        now: this.now,
      },
    );
    this.target = bigQueryTarget({ project: options.dataProject, dataset: options.dataset });
  }

  async listTables(): Promise<TableInfo[]> {
    return this.call("list tables", () => this.tables.describeAll());
  }

  async describeTable(name: string): Promise<TableInfo> {
    return this.call(`describe ${name}`, () => this.tables.describe(name));
  }

  async query(request: QueryRequest): Promise<QueryResult> {
    if (this.closed) throw new StorageError("the warehouse is closed", false);
    const { maxRows } = this.settings;
    const allowed = await this.call("list tables", () => this.tables.list());
    // One extra row tells a result that fills the cap from one the cap cut.
    const guarded = guardSql(request.sql, {
      allowedTables: allowed,
      dataset: this.settings.dataset,
      project: this.settings.dataProject,
      maxRows: maxRows + 1,
      target: this.target,
    });
    const params: Record<string, SqlParam> = {};
    for (const name of guarded.params) {
      const value = request.params?.[name];
      if (value === undefined)
        throw new InvalidInputError(`the query uses @${name} but no value was given for it`);
      params[name] = value;
    }
    const fingerprint = queryFingerprint(guarded.sql, params);
    const pageSize = Math.min(
      Math.max(1, Math.floor(request.pageSize ?? this.settings.defaultPageSize)),
      this.settings.maxPageSize,
    );
    const spec: QueryJobSpec = {
      sql: guarded.sql,
      params,
      labels: sanitizeLabels({ ...this.settings.labels, ...request.labels, app: "ferret" }),
      maximumBytesBilled: this.settings.maximumBytesBilled,
      jobTimeoutMs: this.settings.timeoutMs,
    };
    const page = { offset: 0, pageSize, fingerprint, sql: guarded.sql };
    const signal = request.signal;
    if (request.pageToken) {
      const position = decodeJobPageToken(request.pageToken, fingerprint);
      const job = this.client.job(position.jobId, position.location ? { location: position.location } : {});
      await this.checkJobBehindToken(job, spec);
      return this.readPage(job, { ...page, offset: position.offset }, signal);
    }
    const estimate = await this.dryRun(spec, allowed);
    if (signal?.aborted) throw abortReason(signal);
    const job = await this.call("start query job", async () => {
      const [created] = await this.client.createQueryJob(queryJobOptions(spec, { dryRun: false }));
      return created;
    });
    if (signal?.aborted) return abandon(job, signal);
    return this.readPage(job, page, signal, estimate);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /**
   * Prices the statement without running it; refuses it above the cap, and unless the
   * engine reads it as one SELECT over the dataset's tables (dry-run-check.ts).
   */
  private async dryRun(spec: QueryJobSpec, allowed: readonly string[]): Promise<number | undefined> {
    const dry = await this.call("dry run", async () => {
      const [, response] = await this.client.createQueryJob(queryJobOptions(spec, { dryRun: true }));
      return parseResource(JobSchema, response, "dry run");
    });
    checkDryRun(dry, { project: this.settings.dataProject, dataset: this.settings.dataset, tables: allowed });
    // Without an estimate the job's own maximumBytesBilled still stops an oversized scan.
    const bytes = dry.statistics?.query?.totalBytesProcessed ?? dry.statistics?.totalBytesProcessed;
    if (bytes !== undefined && bytes > this.settings.maximumBytesBilled)
      throw new ScanCapExceededError(bytes, this.settings.maximumBytesBilled);
    return bytes;
  }

  private async checkJobBehindToken(job: Job, spec: QueryJobSpec): Promise<void> {
    let metadata: unknown;
    try {
      [metadata] = await job.getMetadata();
    } catch (error) {
      const mapped = toWarehouseError(error, this.context("look up the job behind pageToken"));
      if (mapped instanceof NotFoundError)
        throw new InvalidInputError(
          "the result behind this pageToken is gone (BigQuery keeps results about a day); run the query again without pageToken",
        );
      throw mapped;
    }
    if (!jobRan(parseResource(JobSchema, metadata, "job lookup"), spec.sql, spec.params))
      throw new InvalidInputError(
        "pageToken does not belong to this query; send the same sql and params as the first page",
      );
  }

  /** Rows [offset, offset + pageSize) of a job's result, never past maxRows. */
  private async readPage(
    job: Job,
    page: { offset: number; pageSize: number; fingerprint: string; sql: string },
    signal: AbortSignal | undefined,
    estimate?: number,
  ): Promise<QueryResult> {
    const { maxRows, timeoutMs, clientGraceMs, pollWaitMs } = this.settings;
    const want = Math.max(0, Math.min(page.offset + page.pageSize, maxRows) - page.offset);
    const { results, rows } = await this.call("read results", () =>
      readRows(
        job,
        { startIndex: page.offset, maxResults: want },
        { pollWaitMs, timeoutMs, deadline: this.now() + timeoutMs + clientGraceMs, now: this.now, signal },
      ),
    );
    const fields = results.schema?.fields ?? [];
    const total = results.totalRows ?? page.offset + rows.length;
    const capped = Math.min(total, maxRows);
    const end = page.offset + rows.length;
    const bytes = results.totalBytesProcessed ?? estimate;
    return {
      columns: fields.map((f) => f.name),
      rows: rowsToJson(fields, rows),
      totalRows: capped,
      ...(end < capped && rows.length > 0
        ? {
            nextPageToken: encodeJobPageToken(page.fingerprint, {
              jobId: job.id ?? "",
              ...(job.location ? { location: job.location } : {}),
              offset: end,
            }),
          }
        : {}),
      truncated: total > maxRows,
      ...(bytes !== undefined ? { bytesProcessed: bytes } : {}),
      executedSql: page.sql,
    };
  }

  private context(what: string): ErrorContext {
    return { what, timeoutMs: this.settings.timeoutMs, maxBytesBilled: this.settings.maximumBytesBilled };
  }

  private async call<T>(what: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof FerretError) throw error;
      throw toWarehouseError(error, this.context(what));
    }
  }
}
