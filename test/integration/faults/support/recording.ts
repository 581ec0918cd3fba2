import { SqlRefusedError } from "../../../../functions/src/domain/errors.js";
import type {
  LogWarehouse,
  QueryRequest,
  QueryResult,
} from "../../../../functions/src/ports/log-warehouse.js";
import type { ToolContext, ToolOutput } from "../../../../functions/src/tools/port.js";
import type { ToolboxRegistry } from "../../../../functions/src/tools/toolbox.js";

/**
 * Instruments the real adapters so a test measures what actually ran, not what a model
 * asked for: every statement that reached the warehouse with the guard's decision and the
 * SQL the engine executed, and every tool the registry executed.
 */
export interface RecordedQuery {
  requested: string;
  decision: "executed" | "refused" | "failed";
  /** The statement DuckDB ran (after the guard's rewrite), when it ran. */
  executedSql?: string;
  reason?: string;
}

export class RecordingWarehouse implements LogWarehouse {
  readonly queries: RecordedQuery[] = [];
  constructor(private readonly inner: LogWarehouse) {}

  get dialect() {
    return this.inner.dialect;
  }
  listTables() {
    return this.inner.listTables();
  }
  describeTable(name: string) {
    return this.inner.describeTable(name);
  }
  close() {
    return this.inner.close();
  }

  async query(request: QueryRequest): Promise<QueryResult> {
    try {
      const result = await this.inner.query(request);
      this.queries.push({ requested: request.sql, decision: "executed", executedSql: result.executedSql });
      return result;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.queries.push({
        requested: request.sql,
        decision: error instanceof SqlRefusedError ? "refused" : "failed",
        reason,
      });
      throw error;
    }
  }
}

export class RecordingRegistry implements ToolboxRegistry {
  /** Tool names the registry was asked to run, i.e. that passed every ToolBox gate. */
  readonly executed: { name: string; investigationId: string }[] = [];
  constructor(private readonly inner: ToolboxRegistry) {}

  names() {
    return this.inner.names();
  }
  declarations() {
    return this.inner.declarations();
  }
  run(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput> {
    this.executed.push({ name, investigationId: ctx.investigationId });
    return this.inner.run(name, rawArgs, ctx);
  }
}

/** Statement keywords that write, load, attach, export or reconfigure. */
const WRITE =
  /^\s*(?:INSERT|UPDATE|DELETE|MERGE|DROP|CREATE|ALTER|TRUNCATE|REPLACE|COPY|ATTACH|DETACH|EXPORT|IMPORT|INSTALL|LOAD|PRAGMA|SET|RESET|CALL|GRANT|REVOKE|VACUUM|CHECKPOINT|USE|BEGIN|COMMIT)\b/i;

/**
 * True when an executed statement could have written: anything that is not one SELECT/WITH
 * statement. String literals are blanked first so a value such as 'DROP TABLE x' inside a
 * SELECT does not count.
 */
export function isWriteSql(sql: string): boolean {
  const blanked = sql.replace(/'(?:[^']|'')*'/g, "''").replace(/--[^\n]*/g, "");
  const statements = blanked
    .split(";")
    .map((s) => s.trim())
    .filter(Boolean);
  if (statements.length !== 1) return true;
  const only = statements[0] as string;
  return WRITE.test(only) || !/^\s*\(?\s*(?:SELECT|WITH)\b/i.test(only);
}
