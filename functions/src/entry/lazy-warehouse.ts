import { existsSync, readdirSync, statSync } from "node:fs";
import { TABLE_FILE } from "../adapters/duckdb/table-file.js";
import { ConfigError, errorMessage, FerretError, StorageError } from "../domain/errors.js";
import { type Lazy, lazy } from "../platform/lazy.js";
import type { LogWarehouse, QueryRequest, QueryResult, TableInfo } from "../ports/log-warehouse.js";
import { LOG_TABLES, logTableDef } from "../sql/log-schema.js";

/**
 * A LogWarehouse opened on first use. Opening the local warehouse loads every JSONL file,
 * and one malformed line fails the load; done at start-up, that failure stopped every
 * function of the process (ingest and the notifier included), outside the error handling
 * of any message. Here it becomes the error of the query that needed the warehouse, and
 * the next use tries again (the file may have been fixed): lazy()'s rule.
 */
export class LazyLogWarehouse implements LogWarehouse {
  private readonly warehouse: Lazy<LogWarehouse>;

  constructor(
    readonly dialect: LogWarehouse["dialect"],
    open: () => Promise<LogWarehouse>,
  ) {
    this.warehouse = lazy(async () => {
      try {
        return await open();
      } catch (error) {
        if (error instanceof FerretError) throw error;
        throw new StorageError(`the log warehouse could not be opened: ${errorMessage(error)}`, false, error);
      }
    });
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

  /** Closes what an earlier use opened; opens nothing. */
  async close(): Promise<void> {
    const warehouse = await this.warehouse.drop()?.catch(() => undefined);
    await warehouse?.close();
  }
}

/**
 * The tables the local warehouse will hold, from the directory listing alone (the log schema's
 * tables always exist, empty without a file), so planning needs no load.
 */
export function duckDbTableList(dir: string): { name: string; description: string }[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new ConfigError(`log directory ${dir} does not exist`);
  const extra = readdirSync(dir)
    .sort()
    .flatMap((file) => {
      const name = TABLE_FILE.exec(file)?.[1];
      return name !== undefined && !logTableDef(name, LOG_TABLES) ? [name] : [];
    });
  return [
    ...LOG_TABLES.map((t) => ({ name: t.name, description: t.description })),
    ...extra.map((name) => ({
      name,
      description: `Loaded from ${name}.jsonl; not in ferret's log schema, so columns are inferred.`,
    })),
  ];
}
