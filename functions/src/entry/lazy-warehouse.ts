import { existsSync, readdirSync, statSync } from "node:fs";
import { TABLE_FILE } from "../adapters/duckdb/table-file.js";
import { ConfigError, errorMessage, FerretError, StorageError } from "../domain/errors.js";
import type { LogWarehouse, QueryRequest, QueryResult, TableInfo } from "../ports/log-warehouse.js";
import { catalogTable, LOG_TABLES } from "../sql/log-catalog.js";

/**
 * A LogWarehouse opened on first use. Opening the local warehouse loads every JSONL file,
 * and one malformed line fails the load; done at start-up, that failure stopped every
 * function of the process (ingest and the notifier included), outside the error handling
 * of any message. Here it becomes the error of the query that needed the warehouse, and
 * the next use tries again (the file may have been fixed).
 */
export class LazyLogWarehouse implements LogWarehouse {
  private opening: Promise<LogWarehouse> | undefined;

  constructor(
    readonly dialect: LogWarehouse["dialect"],
    private readonly open: () => Promise<LogWarehouse>,
  ) {}

  /** Whether a previous use opened (or is opening) the warehouse. */
  get started(): boolean {
    return this.opening !== undefined;
  }

  private warehouse(): Promise<LogWarehouse> {
    this.opening ??= this.open().catch((error: unknown) => {
      this.opening = undefined;
      if (error instanceof FerretError) throw error;
      throw new StorageError(`the log warehouse could not be opened: ${errorMessage(error)}`, false, error);
    });
    return this.opening;
  }

  async listTables(): Promise<TableInfo[]> {
    return (await this.warehouse()).listTables();
  }

  async describeTable(name: string): Promise<TableInfo> {
    return (await this.warehouse()).describeTable(name);
  }

  async query(request: QueryRequest): Promise<QueryResult> {
    return (await this.warehouse()).query(request);
  }

  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    const warehouse = await opening?.catch(() => undefined);
    await warehouse?.close();
  }
}

/**
 * The tables the local warehouse will hold, from the directory listing alone (the catalog's
 * tables always exist, empty without a file), so planning needs no load.
 */
export function duckDbTableList(dir: string): { name: string; description: string }[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new ConfigError(`log directory ${dir} does not exist`);
  const extra = readdirSync(dir)
    .sort()
    .flatMap((file) => {
      const name = TABLE_FILE.exec(file)?.[1];
      return name !== undefined && !catalogTable(name, LOG_TABLES) ? [name] : [];
    });
  return [
    ...LOG_TABLES.map((t) => ({ name: t.name, description: t.description })),
    ...extra.map((name) => ({
      name,
      description: `Loaded from ${name}.jsonl; not in ferret's catalog, so columns are inferred.`,
    })),
  ];
}
