import { SqlRefusedError, StorageError } from "../../domain/errors.js";
import type { JobMetadata } from "./resources.js";

/**
 * The production guard's source of truth: what BigQuery itself parsed from the statement
 * in the dry run. The lexer-based guard (sql/guard.ts) runs first and catches the obvious
 * before anything is sent; this check rests on the engine's own reading, so a statement
 * the lexer misread (a dialect corner, a comment trick) is still refused before it runs:
 * the statement must be a single SELECT, and every table it reads must be one of the
 * sink dataset's tables.
 */
export function checkDryRun(
  dry: JobMetadata,
  allowed: { project: string; dataset: string; tables: readonly string[] },
): void {
  const query = dry.statistics?.query;
  const type = query?.statementType;
  if (type === undefined)
    throw new StorageError("the dry run did not say what kind of statement this is; nothing was run", false);
  if (type !== "SELECT")
    throw new SqlRefusedError(`BigQuery reads this as a ${type} statement; only a single SELECT may run`);
  const names = new Set(allowed.tables.map((t) => t.toLowerCase()));
  for (const table of query?.referencedTables ?? []) {
    const inDataset = table.projectId === allowed.project && table.datasetId === allowed.dataset;
    if (!inDataset || !names.has(table.tableId.toLowerCase()))
      throw new SqlRefusedError(
        `BigQuery resolves the statement to read ${table.projectId}.${table.datasetId}.${table.tableId}, outside the log tables of ${allowed.project}.${allowed.dataset}`,
      );
  }
}
