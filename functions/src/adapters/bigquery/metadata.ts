import type { Dataset, GetTablesOptions, GetTablesResponse } from "@google-cloud/bigquery";
import { NotFoundError } from "../../domain/errors.js";
import type { TableInfo } from "../../ports/log-warehouse.js";
import { type LogTableDef, logTableDef } from "../../sql/log-schema.js";
import { describeFields } from "./describe.js";
import { parseResource, TableListEntrySchema, TableSchema } from "./resources.js";

/** Kinds of dataset entries a query may read; external tables read buckets, so they are left out. */
const QUERYABLE_TYPES = new Set(["TABLE", "VIEW", "MATERIALIZED_VIEW"]);
const MAX_PARALLEL_DESCRIBES = 8;

interface Cached<T> {
  value: Promise<T>;
  at: number;
}

/**
 * The log dataset's tables and schemas, from the library's Dataset.getTables and
 * Table.getMetadata (tables.list and tables.get: both free, unlike
 * an INFORMATION_SCHEMA query), cached for `ttlMs` so a warm function instance does not
 * re-read them on every query, yet sees a new table from the sink within minutes.
 */
export class DatasetTables {
  private names: Cached<string[]> | undefined;
  private readonly described = new Map<string, Cached<TableInfo>>();

  constructor(
    private readonly dataset: Dataset,
    private readonly settings: {
      logTables: readonly LogTableDef[];
      ttlMs: number;
      now: () => number;
    },
  ) {}

  /** Queryable tables in the dataset, sorted; the SQL guard's allowlist. */
  async list(): Promise<string[]> {
    const fresh = this.names && this.settings.now() - this.names.at < this.settings.ttlMs;
    if (!fresh) {
      const value = this.fetchNames();
      this.names = { value, at: this.settings.now() };
      value.catch(() => {
        if (this.names?.value === value) this.names = undefined; // do not cache a failure
      });
    }
    return this.names!.value;
  }

  async describe(name: string): Promise<TableInfo> {
    const names = await this.list();
    const bare = name.split(".").at(-1) ?? name;
    const table = names.find((n) => n.toLowerCase() === bare.toLowerCase());
    if (!table)
      throw new NotFoundError(
        `no log table "${name}" in dataset ${this.dataset.id} (tables: ${names.join(", ") || "none"})`,
      );
    const cached = this.described.get(table);
    if (cached && this.settings.now() - cached.at < this.settings.ttlMs) return cached.value;
    const value = this.fetchTable(table);
    this.described.set(table, { value, at: this.settings.now() });
    value.catch(() => {
      if (this.described.get(table)?.value === value) this.described.delete(table);
    });
    return value;
  }

  async describeAll(): Promise<TableInfo[]> {
    const names = await this.list();
    const out: TableInfo[] = [];
    for (let i = 0; i < names.length; i += MAX_PARALLEL_DESCRIBES) {
      out.push(
        ...(await Promise.all(names.slice(i, i + MAX_PARALLEL_DESCRIBES).map((n) => this.describe(n)))),
      );
    }
    return out;
  }

  private async fetchNames(): Promise<string[]> {
    const names: string[] = [];
    // Paged by hand: the library's auto-pagination stops after one page once maxResults is set.
    let query: GetTablesOptions | null | undefined = { maxResults: 1000, autoPaginate: false };
    while (query) {
      const [tables, next]: GetTablesResponse = await this.dataset.getTables(query);
      for (const table of tables) {
        const entry = parseResource(TableListEntrySchema, table.metadata, "table list");
        if (QUERYABLE_TYPES.has((entry.type ?? "TABLE").toUpperCase()) && table.id) names.push(table.id);
      }
      query = next;
    }
    return names.sort();
  }

  private async fetchTable(name: string): Promise<TableInfo> {
    const [metadata] = await this.dataset.table(name).getMetadata();
    const table = parseResource(TableSchema, metadata, `metadata of table ${name}`);
    const def = logTableDef(name, this.settings.logTables);
    return {
      name,
      description:
        def?.description ??
        (table.description?.trim() ||
          `Table in dataset ${this.dataset.id}; not in ferret's log schema, so columns are as BigQuery reports them.`),
      columns: describeFields(table.schema?.fields ?? [], def),
    };
  }
}
