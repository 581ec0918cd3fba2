import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
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
import { LOG_TABLES, type LogTableDef } from "../../sql/log-catalog.js";
import { queryFingerprint } from "../../sql/page-token.js";
import { QueryTimeoutError } from "../../sql/query-errors.js";
import { bigQueryTarget, type SqlTarget } from "../../sql/targets.js";
import { type BigQueryApi, type BigQueryApiOptions, createBigQueryApi, type ResultsPage } from "./api.js";
import { checkDryRun } from "./dry-run-check.js";
import { type ErrorContext, jobError, ScanCapExceededError, toWarehouseError } from "./errors.js";
import { jobRan, type QueryJobSpec, queryJobBody, sanitizeLabels } from "./jobs.js";
import { DatasetTables } from "./metadata.js";
import { decodeJobPageToken, encodeJobPageToken } from "./page-token.js";
import type { JobReference, QueryResults, Row } from "./rest.js";
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
  catalog?: readonly LogTableDef[];
  /** How long table lists and schemas are reused. */
  metadataTtlMs?: number;
  /** How long one getQueryResults call may wait for the job on the server. */
  pollWaitMs?: number;
  /** Past the job's own timeout, how long the client keeps waiting for BigQuery to report it. */
  clientGraceMs?: number;
  /** Transport options when `api` is not given. */
  apiEndpoint?: BigQueryApiOptions["apiEndpoint"];
  authClient?: BigQueryApiOptions["authClient"];
  maxRetries?: BigQueryApiOptions["maxRetries"];
  /** A ready transport (tests, or a shared client). */
  api?: BigQueryApi;
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
 * The production LogWarehouse. Every statement passes the SQL guard (one SELECT over the
 * sink dataset's tables, qualified as `project.dataset.table`, LIMIT enforced), then a
 * dry run that prices it, and only then the job, which carries maximumBytesBilled,
 * jobTimeoutMs and labels. Results are read from the finished job page by page.
 */
export class BigQueryLogWarehouse implements LogWarehouse {
  readonly dialect = "bigquery" as const;
  private readonly api: BigQueryApi;
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
    this.api =
      options.api ??
      createBigQueryApi({
        jobProject,
        dataProject: options.dataProject,
        dataset: options.dataset,
        ...(options.apiEndpoint ? { apiEndpoint: options.apiEndpoint } : {}),
        ...(options.authClient ? { authClient: options.authClient } : {}),
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      });
    this.tables = new DatasetTables(this.api, {
      dataset: options.dataset,
      catalog: options.catalog ?? LOG_TABLES,
      ttlMs: options.metadataTtlMs ?? BIGQUERY_WAREHOUSE_DEFAULTS.metadataTtlMs,
      now: this.now,
    });
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
    if (request.pageToken) {
      const position = decodeJobPageToken(request.pageToken, fingerprint);
      const ref = this.jobRef(position.jobId, position.location);
      await this.checkJobBehindToken(ref, spec);
      return this.readPage(ref, { ...page, offset: position.offset });
    }
    const estimate = await this.dryRun(spec, allowed);
    const ref = await this.startJob(spec);
    return this.readPage(ref, page, estimate);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /**
   * Prices the statement without running it; refuses it above the cap, and unless the
   * engine reads it as one SELECT over the dataset's tables (dry-run-check.ts).
   */
  private async dryRun(spec: QueryJobSpec, allowed: readonly string[]): Promise<number | undefined> {
    const dry = await this.call("dry run", () =>
      this.api.insertJob(queryJobBody(spec, { dryRun: true, projectId: this.settings.jobProject })),
    );
    if (dry.status?.errorResult) throw jobError(dry.status.errorResult, this.context("dry run"));
    checkDryRun(dry, { project: this.settings.dataProject, dataset: this.settings.dataset, tables: allowed });
    // Without an estimate the job's own maximumBytesBilled still stops an oversized scan.
    const bytes = dry.statistics?.query?.totalBytesProcessed ?? dry.statistics?.totalBytesProcessed;
    if (bytes !== undefined && bytes > this.settings.maximumBytesBilled)
      throw new ScanCapExceededError(bytes, this.settings.maximumBytesBilled);
    return bytes;
  }

  private async startJob(spec: QueryJobSpec): Promise<JobReference> {
    // Our own job id: when the library retries an insert that did reach BigQuery, the
    // duplicate is answered 409 and the first job is picked up instead of run twice.
    const jobId = `ferret_${randomUUID().replaceAll("-", "")}`;
    const body = queryJobBody(spec, { dryRun: false, projectId: this.settings.jobProject, jobId });
    let job: Awaited<ReturnType<BigQueryApi["insertJob"]>>;
    try {
      job = await this.api.insertJob(body);
    } catch (error) {
      if (httpStatus(error) !== 409) throw toWarehouseError(error, this.context("start query job"));
      job = await this.call("start query job", () => this.api.getJob(this.jobRef(jobId)));
    }
    if (job.status?.errorResult) throw jobError(job.status.errorResult, this.context("query job"));
    return this.jobRef(job.jobReference?.jobId ?? jobId, job.jobReference?.location);
  }

  private async checkJobBehindToken(ref: JobReference, spec: QueryJobSpec): Promise<void> {
    let job: Awaited<ReturnType<BigQueryApi["getJob"]>>;
    try {
      job = await this.api.getJob(ref);
    } catch (error) {
      const mapped = toWarehouseError(error, this.context("look up the job behind pageToken"));
      if (mapped instanceof NotFoundError)
        throw new InvalidInputError(
          "the result behind this pageToken is gone (BigQuery keeps results about a day); run the query again without pageToken",
        );
      throw mapped;
    }
    if (!jobRan(job, spec.sql, spec.params))
      throw new InvalidInputError(
        "pageToken does not belong to this query; send the same sql and params as the first page",
      );
  }

  /** Rows [offset, offset + pageSize) of a job's result, never past maxRows. */
  private async readPage(
    ref: JobReference,
    page: { offset: number; pageSize: number; fingerprint: string; sql: string },
    estimate?: number,
  ): Promise<QueryResult> {
    const { maxRows } = this.settings;
    const want = Math.max(0, Math.min(page.offset + page.pageSize, maxRows) - page.offset);
    const deadline = this.now() + this.settings.timeoutMs + this.settings.clientGraceMs;
    const first = await this.waitForResults(ref, { startIndex: page.offset, maxResults: want }, deadline);
    const rows: Row[] = [...(first.rows ?? [])];
    // A page larger than BigQuery's response size limit arrives in parts, chained by pageToken.
    let next = first.pageToken;
    while (rows.length < want && next) {
      const part = await this.call("read results", () =>
        this.api.getQueryResults(ref, {
          pageToken: next,
          maxResults: want - rows.length,
          waitMs: this.settings.pollWaitMs,
        }),
      );
      rows.push(...(part.rows ?? []));
      next = part.pageToken;
    }
    const fields = first.schema?.fields ?? [];
    const kept = rows.slice(0, want);
    const total = first.totalRows ?? page.offset + kept.length;
    const capped = Math.min(total, maxRows);
    const end = page.offset + kept.length;
    const bytes = first.totalBytesProcessed ?? estimate;
    return {
      columns: fields.map((f) => f.name),
      rows: rowsToJson(fields, kept),
      totalRows: capped,
      ...(end < capped && kept.length > 0
        ? {
            nextPageToken: encodeJobPageToken(page.fingerprint, {
              jobId: ref.jobId,
              ...(ref.location ? { location: ref.location } : {}),
              offset: end,
            }),
          }
        : {}),
      truncated: total > maxRows,
      ...(bytes !== undefined ? { bytesProcessed: bytes } : {}),
      executedSql: page.sql,
    };
  }

  /** Long-polls getQueryResults until the job is done or past its time budget. */
  private async waitForResults(
    ref: JobReference,
    page: Omit<ResultsPage, "waitMs">,
    deadline: number,
  ): Promise<QueryResults> {
    for (;;) {
      const remaining = deadline - this.now();
      if (remaining <= 0) {
        // Best effort: the job's own jobTimeoutMs ends it anyway.
        await this.api.cancelJob(ref).catch(() => undefined);
        throw new QueryTimeoutError(this.settings.timeoutMs);
      }
      const waitMs = Math.max(1, Math.min(this.settings.pollWaitMs, remaining));
      const results = await this.call("read results", () =>
        this.api.getQueryResults(ref, { ...page, waitMs }),
      );
      if (results.jobComplete !== false) return results;
      // The server already waited waitMs; a short pause keeps a fast-answering fake from spinning.
      await sleep(Math.min(250, Math.max(0, deadline - this.now())));
    }
  }

  private jobRef(jobId: string, location?: string): JobReference {
    return { projectId: this.settings.jobProject, jobId, ...(location ? { location } : {}) };
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

function httpStatus(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "number" ? error.code : undefined;
}
