import { SqlRefusedError } from "../domain/errors.js";

export interface TableScope {
  /** Table names the caller may query, e.g. cloudaudit_googleapis_com_activity. */
  allowedTables: readonly string[];
  /** The one dataset those tables live in; `dataset.table` must name it. */
  dataset: string;
  /** The project of that dataset; `project.dataset.table` must name it. Unset: three-part names are refused. */
  project?: string;
}

/** The INFORMATION_SCHEMA views of the allowed dataset that may be read. */
export const INFORMATION_SCHEMA_VIEWS = ["TABLES", "COLUMNS", "COLUMN_FIELD_PATHS"] as const;
export type InformationSchemaView = (typeof INFORMATION_SCHEMA_VIEWS)[number];

export type ResolvedTable =
  | { kind: "table"; name: string }
  | { kind: "cte"; name: string }
  | { kind: "information_schema"; view: InformationSchemaView };

const NAME_PART = /^[A-Za-z0-9_-]+$/;

function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * Resolves a table reference written as name parts (a backtick name like `p.d.t` is
 * split on dots first) against the allowlist. Every refusal names what was refused.
 */
export function resolveTable(
  rawParts: readonly string[],
  scope: TableScope,
  cteNames: ReadonlySet<string>,
): ResolvedTable {
  const parts = rawParts.flatMap((p) => p.split("."));
  const shown = parts.join(".");
  if (parts.some((p) => p.length === 0)) throw new SqlRefusedError(`malformed table name "${shown}"`);
  if (parts.some((p) => p.includes("*"))) {
    throw new SqlRefusedError(`wildcard table "${shown}" is not allowed; name each table`);
  }
  const bad = parts.find((p) => !NAME_PART.test(p));
  if (bad !== undefined) {
    throw new SqlRefusedError(
      `"${shown}" is not a table name (files, URLs and external sources are not allowed)`,
    );
  }

  const isIndex = parts.findIndex((p) => same(p, "INFORMATION_SCHEMA"));
  if (isIndex !== -1) return resolveInformationSchema(parts, isIndex, scope);

  if (parts.length > 3) throw new SqlRefusedError(`table name "${shown}" has too many parts`);
  const table = parts[parts.length - 1]!;
  if (parts.length === 1) {
    const cte = [...cteNames].find((c) => same(c, table));
    if (cte !== undefined) return { kind: "cte", name: cte };
  }
  if (parts.length >= 2) {
    const dataset = parts[parts.length - 2]!;
    if (!same(dataset, scope.dataset)) {
      throw new SqlRefusedError(`dataset "${dataset}" is not allowed (only "${scope.dataset}")`);
    }
  }
  if (parts.length === 3) {
    const project = parts[0]!;
    if (scope.project === undefined || !same(project, scope.project)) {
      throw new SqlRefusedError(
        `project "${project}" is not allowed${scope.project ? ` (only "${scope.project}")` : ""}`,
      );
    }
  }
  const allowed = scope.allowedTables.find((t) => same(t, table));
  if (allowed === undefined) {
    throw new SqlRefusedError(
      `table "${table}" is not one of the log tables (${scope.allowedTables.join(", ")})`,
    );
  }
  return { kind: "table", name: allowed };
}

function resolveInformationSchema(parts: readonly string[], index: number, scope: TableScope): ResolvedTable {
  const shown = parts.join(".");
  const qualifiers = parts.slice(0, index);
  const view = parts.slice(index + 1);
  if (view.length !== 1) throw new SqlRefusedError(`"${shown}" is not an INFORMATION_SCHEMA view`);
  const dataset = qualifiers[qualifiers.length - 1];
  if (dataset !== undefined && !same(dataset, scope.dataset)) {
    throw new SqlRefusedError(
      `INFORMATION_SCHEMA of "${dataset}" is not allowed (only of "${scope.dataset}")`,
    );
  }
  if (qualifiers.length === 2 && (scope.project === undefined || !same(qualifiers[0]!, scope.project))) {
    throw new SqlRefusedError(`INFORMATION_SCHEMA of project "${qualifiers[0]}" is not allowed`);
  }
  if (qualifiers.length > 2) throw new SqlRefusedError(`"${shown}" has too many parts`);
  const name = view[0]!.toUpperCase();
  const known = INFORMATION_SCHEMA_VIEWS.find((v) => v === name);
  if (!known) {
    throw new SqlRefusedError(
      `INFORMATION_SCHEMA.${name} is not allowed (only ${INFORMATION_SCHEMA_VIEWS.join(", ")} of "${scope.dataset}")`,
    );
  }
  return { kind: "information_schema", view: known };
}
