import { z } from "zod";

/**
 * The parts of the BigQuery v2 REST resources the warehouse reads (jobs.insert, jobs.get,
 * jobs.getQueryResults, tables.list, tables.get). Responses are checked against these
 * instead of trusted, and unknown fields pass through untouched. int64 fields arrive as
 * decimal strings, as the REST API encodes them.
 */
const Int64String = z.union([z.string().regex(/^-?\d+$/), z.number().int()]).transform((v) => Number(v));

export const ErrorProtoSchema = z.looseObject({
  reason: z.string().optional(),
  message: z.string().optional(),
  location: z.string().optional(),
});
export type ErrorProto = z.infer<typeof ErrorProtoSchema>;

/** A dry run's reference has no jobId: nothing was created. */
export const JobReferenceSchema = z.looseObject({
  projectId: z.string().optional(),
  jobId: z.string().optional(),
  location: z.string().optional(),
});

/** The job a call is about. */
export interface JobReference {
  projectId: string;
  jobId: string;
  location?: string;
}

export const QueryParameterSchema = z.object({
  name: z.string(),
  parameterType: z.object({ type: z.string() }),
  parameterValue: z.object({ value: z.string() }),
});
export type QueryParameter = z.infer<typeof QueryParameterSchema>;

export const JobSchema = z.looseObject({
  jobReference: JobReferenceSchema.optional(),
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
  status: z
    .looseObject({
      state: z.string().optional(),
      errorResult: ErrorProtoSchema.optional(),
      errors: z.array(ErrorProtoSchema).optional(),
    })
    .optional(),
  statistics: z
    .looseObject({
      totalBytesProcessed: Int64String.optional(),
      query: z
        .looseObject({
          totalBytesProcessed: Int64String.optional(),
          totalBytesBilled: Int64String.optional(),
          cacheHit: z.boolean().optional(),
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
export type Job = z.infer<typeof JobSchema>;

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
  jobReference: JobReferenceSchema.optional(),
  jobComplete: z.boolean().optional(),
  schema: TableSchemaSchema.optional(),
  rows: z.array(RowSchema).optional(),
  totalRows: Int64String.optional(),
  pageToken: z.string().optional(),
  totalBytesProcessed: Int64String.optional(),
  errors: z.array(ErrorProtoSchema).optional(),
});
export type QueryResults = z.infer<typeof QueryResultsSchema>;

export const TableListSchema = z.looseObject({
  tables: z
    .array(
      z.looseObject({
        tableReference: z.looseObject({ tableId: z.string() }),
        type: z.string().optional(),
      }),
    )
    .default([]),
  nextPageToken: z.string().optional(),
});
export type TableList = z.infer<typeof TableListSchema>;

export const TableSchema = z.looseObject({
  tableReference: z.looseObject({ tableId: z.string() }).optional(),
  type: z.string().optional(),
  description: z.string().optional(),
  schema: TableSchemaSchema.optional(),
});
export type Table = z.infer<typeof TableSchema>;

/** The jobs.insert request body for a query job (dry run or real). */
export interface QueryJobInsert {
  jobReference?: { projectId: string; jobId: string };
  configuration: {
    dryRun?: boolean;
    jobTimeoutMs: string;
    labels: Record<string, string>;
    query: {
      query: string;
      useLegacySql: false;
      parameterMode: "NAMED";
      queryParameters: QueryParameter[];
      maximumBytesBilled: string;
      useQueryCache: boolean;
    };
  };
}
