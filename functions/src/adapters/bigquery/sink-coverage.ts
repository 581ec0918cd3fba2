import type { BigQuery, GetTablesOptions, GetTablesResponse } from "@google-cloud/bigquery";
import { z } from "zod";
import { parseResource } from "./resources.js";

/**
 * What a Cloud Logging sink's dataset holds, from table metadata alone (tables.list and
 * tables.get cost nothing, unlike a query): each table's kind, partitioning, row count and the
 * time span its data can cover — from its creation (the sink's first write) or, when partitions
 * expire, from the oldest partition kept, to its last modification (the sink's last write).
 * Read before `ferret investigate --bigquery` starts anything, to say whether the finding's
 * event time falls inside the logs at all.
 */

const Int64String = z.union([z.string().regex(/^\d+$/), z.number().int()]).transform(Number);

const TableMetadataSchema = z.looseObject({
  type: z.string().optional(),
  numRows: Int64String.optional(),
  creationTime: Int64String.optional(),
  lastModifiedTime: Int64String.optional(),
  timePartitioning: z
    .looseObject({
      type: z.string().optional(),
      field: z.string().optional(),
      expirationMs: Int64String.optional(),
    })
    .optional(),
});

export interface SinkTable {
  name: string;
  type: string;
  rows?: number;
  /** Column the table is partitioned on ("_PARTITIONTIME" when by ingestion time), if any. */
  partitionedBy?: string;
  /** Earliest and latest time the table's rows can have, from its metadata (ms since the epoch). */
  from?: number;
  to?: number;
}

/** Every table of `project.dataset` with its metadata; `now` bounds partition expiry. */
export async function describeSinkTables(
  client: BigQuery,
  project: string,
  dataset: string,
  now: number,
): Promise<SinkTable[]> {
  const ds = client.dataset(dataset, { projectId: project });
  const names: string[] = [];
  let query: GetTablesOptions | null | undefined = { maxResults: 1000, autoPaginate: false };
  while (query) {
    const [tables, next]: GetTablesResponse = await ds.getTables(query);
    for (const table of tables) if (table.id) names.push(table.id);
    query = next;
  }
  const out: SinkTable[] = [];
  for (const name of names.sort()) {
    const [metadata] = await ds.table(name).getMetadata();
    const m = parseResource(TableMetadataSchema, metadata, `metadata of table ${name}`);
    const expiry = m.timePartitioning?.expirationMs;
    const from =
      m.creationTime !== undefined
        ? Math.max(m.creationTime, expiry !== undefined ? now - expiry : Number.NEGATIVE_INFINITY)
        : undefined;
    out.push({
      name,
      type: (m.type ?? "TABLE").toUpperCase(),
      ...(m.numRows !== undefined ? { rows: m.numRows } : {}),
      ...(m.timePartitioning ? { partitionedBy: m.timePartitioning.field ?? "_PARTITIONTIME" } : {}),
      ...(from !== undefined ? { from } : {}),
      ...(m.lastModifiedTime !== undefined ? { to: m.lastModifiedTime } : {}),
    });
  }
  return out;
}
