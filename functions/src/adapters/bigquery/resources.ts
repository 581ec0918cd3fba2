import { z } from "zod";
import { StorageError } from "../../domain/errors.js";

/**
 * The parts of the BigQuery v2 resources the warehouse reads, as the client library hands
 * them over untouched (a job's metadata, a raw getQueryResults answer, a table's metadata).
 * They are checked against these instead of trusted; unknown fields pass through. int64
 * fields arrive as decimal strings, as the REST API encodes them.
 */
const Int64String = z.union([z.string().regex(/^-?\d+$/), z.number().int()]).transform((v) => Number(v));

export const ErrorProtoSchema = z.looseObject({
  reason: z.string().optional(),
  message: z.string().optional(),
  location: z.string().optional(),
});
export type ErrorProto = z.infer<typeof ErrorProtoSchema>;

export const QueryParameterSchema = z.object({
  name: z.string(),
  parameterType: z.object({ type: z.string() }),
  parameterValue: z.object({ value: z.union([z.string(), z.number(), z.boolean()]) }),
});
export type QueryParameter = z.infer<typeof QueryParameterSchema>;

export const JobSchema = z.looseObject({
  configuration: z
    .looseObject({
      dryRun: z.boolean().optional(),
      labels: z.record(z.string(), z.string()).optional(),
      query: z
        .looseObject({
          query: z.string().optional(),
          queryParameters: z.array(QueryParameterSchema).optional(),
        })
        .optional(),
    })
    .optional(),
  statistics: z
    .looseObject({
      totalBytesProcessed: Int64String.optional(),
      query: z
        .looseObject({
          totalBytesProcessed: Int64String.optional(),
          /** What the engine parsed the statement as: SELECT, INSERT, SCRIPT, … */
          statementType: z.string().optional(),
          /** The tables the statement reads, as the engine resolved them (views expanded). */
          referencedTables: z
            .array(z.looseObject({ projectId: z.string(), datasetId: z.string(), tableId: z.string() }))
            .optional(),
        })
        .optional(),
    })
    .optional(),
});
export type JobMetadata = z.infer<typeof JobSchema>;

export interface TableField {
  name: string;
  type: string;
  mode?: string | undefined;
  description?: string | undefined;
  fields?: TableField[] | undefined;
}

export const TableFieldSchema: z.ZodType<TableField> = z.lazy(() =>
  z.looseObject({
    name: z.string(),
    type: z.string(),
    mode: z.string().optional(),
    description: z.string().optional(),
    fields: z.array(TableFieldSchema).optional(),
  }),
);

export const TableSchemaSchema = z.looseObject({ fields: z.array(TableFieldSchema).default([]) });

/** A cell as the REST API sends it: `{v: …}` with nested records as `{f: [...]}`. */
export const RowSchema = z.looseObject({ f: z.array(z.looseObject({ v: z.unknown() })) });
export type Row = z.infer<typeof RowSchema>;

export const QueryResultsSchema = z.looseObject({
  jobComplete: z.boolean().optional(),
  schema: TableSchemaSchema.optional(),
  rows: z.array(RowSchema).optional(),
  totalRows: Int64String.optional(),
  pageToken: z.string().optional(),
  totalBytesProcessed: Int64String.optional(),
});
export type QueryResults = z.infer<typeof QueryResultsSchema>;

/** An entry of tables.list: only the kind matters (external tables are left out). */
export const TableListEntrySchema = z.looseObject({ type: z.string().optional() });

export const TableSchema = z.looseObject({
  description: z.string().optional(),
  schema: TableSchemaSchema.optional(),
});
export type Table = z.infer<typeof TableSchema>;

/** A resource the library returned, checked: a missing required field fails loudly, not later. */
export function parseResource<S extends z.ZodType>(schema: S, body: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new StorageError(
    `BigQuery answered the ${what} with an unexpected shape (${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"})`,
    false,
  );
}
