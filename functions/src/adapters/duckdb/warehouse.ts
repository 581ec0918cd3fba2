import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { type DuckDBConnection, DuckDBInstance, type DuckDBPreparedStatement } from "@duckdb/node-api";
import {
  ConfigError,
  DeadlineExceededError,
  errorMessage,
  FerretError,
  InvalidInputError,
  NotFoundError,
  StorageError,
} from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import type {
  LogWarehouse,
  QueryRequest,
  QueryResult,
  SqlParam,
  TableInfo,
} from "../../ports/log-warehouse.js";
import { guardSql } from "../../sql/guard.js";
import { LOG_TABLES, type LogTableDef, logTableDef } from "../../sql/log-schema.js";
import { decodePageToken, encodePageToken, queryFingerprint } from "../../sql/page-token.js";
import { QueryFailedError, QueryTimeoutError } from "../../sql/query-errors.js";
import { duckDbTarget } from "../../sql/targets.js";
import { BIGQUERY_COMPAT_SQL } from "./compat.js";
import { describeColumns } from "./describe.js";
import { describeProblem, type LogDirReport, stageLogDir } from "./log-files.js";
import { createEmptyTableSql, loadInferredTableSql, loadTableSql } from "./schema.js";
import { TABLE_FILE } from "./table-file.js";
import { toJsonValue } from "./values.js";

export { TABLE_FILE };

export interface DuckDbWarehouseOptions {
  /** Directory of <table>.jsonl files laid out like a Cloud Logging → BigQuery sink. */
  dir: string;
  /** The dataset name queries may qualify tables with (`logs.syslog`). */
  dataset?: string;
  /** The project queries may qualify tables with (`project.logs.syslog`). */
  project?: string;
  /** Rows kept per query; more makes the result `truncated`. */
  maxRows?: number;
  defaultPageSize?: number;
  maxPageSize?: number;
  /** Per-statement time budget; the statement is interrupted after it. */
  timeoutMs?: number;
  logTables?: readonly LogTableDef[];
  /**
   * Told about every file or line that could not be loaded (see log-files.ts), one line
   * each; loading carries on without them.
   */
  onProblem?: (message: string) => void;
}

export const DUCKDB_WAREHOUSE_DEFAULTS = {
  dataset: "logs",
  maxRows: 1_000,
  defaultPageSize: 50,
  maxPageSize: 500,
  timeoutMs: 15_000,
} as const;

interface CachedResult {
  columns: string[];
  rows: JsonObject[];
  truncated: boolean;
}

/** Results kept for paging; a miss simply runs the statement again. */
const RESULT_CACHE_SIZE = 16;

function bindParams(prepared: DuckDBPreparedStatement, params: Readonly<Record<string, SqlParam>>): void {
  for (const [name, value] of Object.entries(params)) {
    const index = prepared.parameterIndex(name);
    if (typeof value === "string") prepared.bindVarchar(index, value);
    else if (typeof value === "boolean") prepared.bindBoolean(index, value);
    else if (Number.isSafeInteger(value)) prepared.bindBigInt(index, BigInt(value));
    else prepared.bindDouble(index, value);
  }
}

/** The calling step's reason when its deadline fired; a bare abort still says what happened. */
function abortReason(signal: AbortSignal): FerretError {
  return signal.reason instanceof FerretError
    ? signal.reason
    : new DeadlineExceededError("the step's deadline passed while the query ran; the statement was stopped");
}

function engineMessage(error: unknown): string {
  return errorMessage(error).split("\n").slice(0, 3).join(" ").slice(0, 500);
}

/**
 * The local LogWarehouse: one in-memory DuckDB per warehouse, loaded from JSONL and then
 * sealed (no file or network access, configuration locked), so even a statement that got
 * past the guard could read nothing but the loaded tables.
 */
export class DuckDbLogWarehouse implements LogWarehouse {
  readonly dialect = "duckdb" as const;
  private readonly cache = new Map<string, CachedResult>();
  private closed = false;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly tables: ReadonlyMap<string, TableInfo>,
    private readonly settings: Required<
      Omit<DuckDbWarehouseOptions, "dir" | "project" | "logTables" | "onProblem">
    > & {
      project?: string;
    },
    private readonly report: LogDirReport,
  ) {}

  static async open(options: DuckDbWarehouseOptions): Promise<DuckDbLogWarehouse> {
    const dir = resolve(options.dir);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new ConfigError(`log directory ${options.dir} does not exist`);
    const logTables = options.logTables ?? LOG_TABLES;
    const staged = stageLogDir(dir, logTables);
    for (const problem of staged.report.problems) options.onProblem?.(describeProblem(problem));
    const files = staged.tables;
    const instance = await DuckDBInstance.create(":memory:");
    const connection = await instance.connect();
    try {
      for (const table of logTables) {
        const file = files.get(table.name);
        await connection.run(file ? loadTableSql(table, file) : createEmptyTableSql(table));
      }
      for (const [name, file] of files) {
        if (!logTableDef(name, logTables)) await connection.run(loadInferredTableSql(name, file));
      }
      for (const statement of BIGQUERY_COMPAT_SQL) await connection.run(statement);
      await connection.run("SET autoinstall_known_extensions = false");
      await connection.run("SET autoload_known_extensions = false");
      await connection.run("SET enable_external_access = false");
      await connection.run("SET lock_configuration = true");
      const tables = new Map<string, TableInfo>();
      for (const name of [
        ...logTables.map((t) => t.name),
        ...[...files.keys()].filter((n) => !logTableDef(n, logTables)),
      ]) {
        const reader = await connection.runAndReadAll(`SELECT * FROM "${name}" LIMIT 0`);
        const def = logTableDef(name, logTables);
        tables.set(name, {
          name,
          description:
            def?.description ??
            `Loaded from the log directory; not in ferret's log schema, so columns are inferred.`,
          columns: describeColumns(reader.columnNames(), reader.columnTypes(), def),
        });
      }
      return new DuckDbLogWarehouse(
        instance,
        tables,
        {
          dataset: options.dataset ?? DUCKDB_WAREHOUSE_DEFAULTS.dataset,
          project: options.project,
          maxRows: options.maxRows ?? DUCKDB_WAREHOUSE_DEFAULTS.maxRows,
          defaultPageSize: options.defaultPageSize ?? DUCKDB_WAREHOUSE_DEFAULTS.defaultPageSize,
          maxPageSize: options.maxPageSize ?? DUCKDB_WAREHOUSE_DEFAULTS.maxPageSize,
          timeoutMs: options.timeoutMs ?? DUCKDB_WAREHOUSE_DEFAULTS.timeoutMs,
        },
        staged.report,
      );
    } catch (error) {
      instance.closeSync();
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`could not load logs from ${options.dir}: ${engineMessage(error)}`);
    } finally {
      connection.closeSync();
      staged.cleanup();
    }
  }

  /** Which files were loaded into which tables, and what was left out and why. */
  loadReport(): LogDirReport {
    return this.report;
  }

  async listTables(): Promise<TableInfo[]> {
    return [...this.tables.values()];
  }

  async describeTable(name: string): Promise<TableInfo> {
    const bare = name.split(".").at(-1) ?? name;
    const table = this.tables.get(bare);
    if (!table)
      throw new NotFoundError(`no log table "${name}" (tables: ${[...this.tables.keys()].join(", ")})`);
    return table;
  }

  async query(request: QueryRequest): Promise<QueryResult> {
    if (this.closed) throw new StorageError("the warehouse is closed", false);
    const { maxRows } = this.settings;
    // One extra row tells a result that fills the cap from one the cap cut.
    const guarded = guardSql(request.sql, {
      allowedTables: [...this.tables.keys()],
      dataset: this.settings.dataset,
      project: this.settings.project,
      maxRows: maxRows + 1,
      target: duckDbTarget,
    });
    const params: Record<string, SqlParam> = {};
    for (const name of guarded.params) {
      const value = request.params?.[name];
      if (value === undefined)
        throw new InvalidInputError(`the query uses @${name} but no value was given for it`);
      params[name] = value;
    }
    const fingerprint = queryFingerprint(guarded.sql, params);
    const offset = request.pageToken ? decodePageToken(request.pageToken, fingerprint) : 0;
    const pageSize = Math.min(
      Math.max(1, Math.floor(request.pageSize ?? this.settings.defaultPageSize)),
      this.settings.maxPageSize,
    );

    let result = this.cache.get(fingerprint);
    if (!result) {
      // The step's deadline has fired: its answer would come too late to be read.
      if (request.signal?.aborted) throw abortReason(request.signal);
      const { columns, rows } = await this.execute(guarded.sql, params, request.signal);
      result = { columns, rows: rows.slice(0, maxRows), truncated: rows.length > maxRows };
      this.remember(fingerprint, result);
    }
    const end = offset + pageSize;
    return {
      columns: result.columns,
      rows: result.rows.slice(offset, end),
      totalRows: result.rows.length,
      ...(end < result.rows.length ? { nextPageToken: encodePageToken(fingerprint, end) } : {}),
      truncated: result.truncated,
      executedSql: guarded.sql,
    };
  }

  /** Whether the engine could still touch files or the network; false once loading is done. */
  async externalAccessEnabled(): Promise<boolean> {
    const connection = await this.instance.connect();
    try {
      const reader = await connection.runAndReadAll(
        "SELECT current_setting('enable_external_access') AS enabled",
      );
      return reader.getRowObjectsJson()[0]?.enabled === true;
    } finally {
      connection.closeSync();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    this.instance.closeSync();
  }

  private remember(fingerprint: string, result: CachedResult): void {
    this.cache.set(fingerprint, result);
    while (this.cache.size > RESULT_CACHE_SIZE) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }

  private async execute(
    sql: string,
    params: Readonly<Record<string, SqlParam>>,
    signal?: AbortSignal,
  ): Promise<{ columns: string[]; rows: JsonObject[] }> {
    // A connection per statement, so an interrupt stops this statement and nothing else.
    const connection: DuckDBConnection = await this.instance.connect();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      connection.interrupt();
    }, this.settings.timeoutMs);
    // The step's deadline stops the statement too, as BigQuery cancels its job.
    const stop = () => connection.interrupt();
    signal?.addEventListener("abort", stop, { once: true });
    try {
      const prepared = await connection.prepare(sql);
      bindParams(prepared, params);
      const reader = await prepared.runAndReadAll();
      const columns = reader.deduplicatedColumnNames();
      const rows = reader.convertRows(toJsonValue).map((values) => {
        const row: JsonObject = {};
        columns.forEach((column, k) => {
          row[column] = values[k] ?? null;
        });
        return row;
      });
      return { columns, rows };
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      if (timedOut) throw new QueryTimeoutError(this.settings.timeoutMs);
      throw new QueryFailedError(engineMessage(error), error);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      connection.closeSync();
    }
  }
}

export function openDuckDbWarehouse(options: DuckDbWarehouseOptions): Promise<DuckDbLogWarehouse> {
  return DuckDbLogWarehouse.open(options);
}
