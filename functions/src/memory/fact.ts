import { z } from "zod";
import { SqlRefusedError } from "../domain/errors.js";
import { guardSql } from "../sql/guard.js";
import { type FieldDef, LOG_TABLES, type LogTableDef } from "../sql/log-schema.js";
import { bigQueryTarget } from "../sql/targets.js";

/**
 * What a memory can say, as a type. A memory is a fact the log analyst needs before it
 * writes SQL: the form of a column's values, or a filter shape that ran. Every field is an
 * identifier from the log schema ferret ships (sql/log-schema.ts) or a value of a closed
 * enum, so there is no place for a principal, an address, a domain, a job or a resource,
 * nor for a word about what is benign or approved: such a claim cannot be written down, in
 * any language or encoding, because nothing here holds text (ADR 0045).
 */

interface KnownColumn {
  path: string;
  /** The field or one of its parents is REPEATED: it is read through UNNEST, never filtered directly. */
  underRepeated: boolean;
  description?: string;
}

function leaves(fields: readonly FieldDef[], prefix = "", repeated = false): KnownColumn[] {
  return fields.flatMap((f) => {
    const path = prefix ? `${prefix}.${f.name}` : f.name;
    const underRepeated = repeated || f.repeated === true;
    if (typeof f.type !== "string") return leaves(f.type, path, underRepeated);
    return [{ path, underRepeated, ...(f.description ? { description: f.description } : {}) }];
  });
}

const COLUMNS = new Map<string, ReadonlyMap<string, KnownColumn>>(
  LOG_TABLES.map((t) => [t.name, new Map(leaves(t.fields).map((c) => [c.path, c]))]),
);

function nonEmpty(values: readonly string[]): [string, ...string[]] {
  const [first, ...rest] = values;
  if (first === undefined) throw new Error("the log schema defines no tables or columns");
  return [first, ...rest];
}

const LogTableNameSchema = z
  .enum(nonEmpty(LOG_TABLES.map((t) => t.name)))
  .describe("A log table ferret knows, by its exact name.");

/** Every leaf column path of any known table; which table has it is checked per fact. */
const ColumnPathSchema = z
  .enum(nonEmpty([...new Set([...COLUMNS.values()].flatMap((cols) => [...cols.keys()]))].sort()))
  .describe("A leaf column of the fact's table, as a dotted path exactly as the schema names it.");

/** What a column's values look like. Closed: each value is a shape of data, never a judgement. */
export const VALUE_FORMATS = {
  email_address: "holds an e-mail address (a user or a service account) without a type prefix",
  iam_member: "holds an IAM member with its type prefix (user:, serviceAccount:, group:, domain:)",
  ip_address: "holds an IPv4 or IPv6 address as text",
  ip_address_or_keyword: "holds an IP address, or a keyword instead of one for internal callers",
  dns_name_trailing_dot: "holds a DNS name that ends with a dot",
  resource_path: "holds a slash-separated resource name (projects/…/…)",
  api_method: "holds an API method name, short or fully qualified",
  integer_as_string: "holds an integer carried as STRING: CAST it before comparing numbers",
  json_text: "holds a JSON document as a string: read it with JSON functions or LIKE",
  raw_text_line: "holds unstructured text: match it with LIKE or REGEXP_CONTAINS",
  upper_case_code: "holds one of a small set of upper-case codes",
  integer_code: "holds an integer status code",
  null_or_zero_when_ok: "is NULL or 0 when the call succeeded",
  utc_timestamp: "holds a UTC timestamp",
  repeated_needs_unnest: "is a repeated field: UNNEST it to read its elements",
} as const;
const ValueFormatSchema = z
  .enum(
    nonEmpty(Object.keys(VALUE_FORMATS)) as [keyof typeof VALUE_FORMATS, ...(keyof typeof VALUE_FORMATS)[]],
  )
  .describe(
    `How the column's values look: ${Object.entries(VALUE_FORMATS)
      .map(([k, v]) => `${k} = ${v}`)
      .join("; ")}.`,
  );

/** A filter condition's form; each renders to one guarded SQL predicate with @parameters for values. */
export const FILTER_TESTS = {
  equals: (c: string, p: string) => `${c} = @${p}`,
  not_equals: (c: string, p: string) => `${c} != @${p}`,
  in_list: (c: string, p: string) => `${c} IN UNNEST(@${p})`,
  like: (c: string, p: string) => `${c} LIKE @${p}`,
  regexp_contains: (c: string, p: string) => `REGEXP_CONTAINS(${c}, @${p})`,
  between: (c: string, p: string) => `${c} BETWEEN @${p}_from AND @${p}_to`,
  less_than: (c: string, p: string) => `${c} < @${p}`,
  greater_than: (c: string, p: string) => `${c} > @${p}`,
  is_null: (c: string) => `${c} IS NULL`,
  is_not_null: (c: string) => `${c} IS NOT NULL`,
} as const;
export type FilterTest = keyof typeof FILTER_TESTS;
const FilterTestSchema = z
  .enum(nonEmpty(Object.keys(FILTER_TESTS)) as [FilterTest, ...FilterTest[]])
  .describe("The condition's form; values are never written down, only the form.");

const CAST_TYPES = ["INT64", "FLOAT64", "TIMESTAMP"] as const;

const FilterSchema = z.strictObject({
  column: ColumnPathSchema,
  test: FilterTestSchema,
  cast: z.enum(CAST_TYPES).optional().describe("Set when the column had to be CAST for the test to work."),
});

export const MAX_FILTERS = 8;

/** Unqualified table names only, so the dataset named here never appears in the checked text. */
const GUARD_OPTIONS = {
  allowedTables: LOG_TABLES.map((t) => t.name),
  dataset: "logs",
  maxRows: 1,
  target: bigQueryTarget({ dataset: "logs" }),
};

const ColumnFormatFactSchema = z.strictObject({
  kind: z.literal("column_format"),
  table: LogTableNameSchema,
  column: ColumnPathSchema,
  format: ValueFormatSchema,
});

const QueryShapeFactSchema = z.strictObject({
  kind: z.literal("query_shape"),
  table: LogTableNameSchema,
  filters: z
    .array(FilterSchema)
    .min(1)
    .max(MAX_FILTERS)
    .describe("The WHERE conditions of a query over the table that ran without error, ANDed."),
});

/**
 * A memory's content. Strict objects: a key the type does not name (a "note", a "reason")
 * makes the whole fact invalid rather than being dropped silently.
 */
export const MemoryFactSchema = z
  .discriminatedUnion("kind", [ColumnFormatFactSchema, QueryShapeFactSchema])
  .superRefine((fact, ctx) => {
    const columns = COLUMNS.get(fact.table);
    const at = (path: (string | number)[], message: string) =>
      ctx.addIssue({ code: "custom", path, message });
    if (fact.kind === "column_format") {
      if (!columns?.has(fact.column)) at(["column"], `${fact.table} has no column ${fact.column}`);
      return;
    }
    let known = true;
    fact.filters.forEach((f, i) => {
      const column = columns?.get(f.column);
      if (!column) at(["filters", i, "column"], `${fact.table} has no column ${f.column}`);
      else if (column.underRepeated)
        at(
          ["filters", i, "column"],
          `${f.column} is repeated in ${fact.table}: it cannot be filtered directly`,
        );
      known &&= column !== undefined && !column.underRepeated;
    });
    if (!known) return;
    // The same read-only guard every query of the analyst passes: a shape it refuses is no shape to remember.
    try {
      guardSql(queryShapeSql(fact), GUARD_OPTIONS);
    } catch (error) {
      if (!(error instanceof SqlRefusedError)) throw error;
      at(["filters"], `the query shape does not pass the SQL guard: ${error.message}`);
    }
  });
export type MemoryFact = z.infer<typeof MemoryFactSchema>;

/** One form per fact: equal facts have equal keys, whatever order the model wrote keys in. */
export function factKey(fact: MemoryFact): string {
  if (fact.kind === "column_format") return JSON.stringify([fact.kind, fact.table, fact.column, fact.format]);
  return JSON.stringify([fact.kind, fact.table, fact.filters.map((f) => [f.column, f.test, f.cast ?? null])]);
}

function backticked(name: string): string {
  return `\`${name}\``;
}

/** The WHERE predicates of a query shape, ANDed, values as @parameters (v1, v2, …). */
function wherePredicates(fact: Extract<MemoryFact, { kind: "query_shape" }>): string {
  return fact.filters
    .map((f, i) => {
      const column = f.cast ? `CAST(${f.column} AS ${f.cast})` : f.column;
      return FILTER_TESTS[f.test](column, `v${i + 1}`);
    })
    .join(" AND ");
}

/** A query shape as one statement over its table: what the SQL guard checks. */
export function queryShapeSql(fact: Extract<MemoryFact, { kind: "query_shape" }>): string {
  return `SELECT COUNT(*) AS n FROM ${fact.table} WHERE ${wherePredicates(fact)}`;
}

/** The sentence a prompt, the console and the CLI show for a fact, written from its fields alone. */
export function factText(fact: MemoryFact): string {
  if (fact.kind === "column_format") {
    return `In ${backticked(fact.table)}, ${backticked(fact.column)} ${VALUE_FORMATS[fact.format]}.`;
  }
  return `A query over ${backticked(fact.table)} with WHERE ${wherePredicates(fact)} ran without error.`;
}

function tableDef(name: string): LogTableDef | undefined {
  return LOG_TABLES.find((t) => t.name === name);
}

/**
 * What a memory is found by: its sentence and the schema's own descriptions of the table
 * and columns it names, so a request about "who changed IAM policies" finds a fact about
 * `protopayload_auditlog.methodName` in the audit table. Only the fact's fields and the
 * schema shipped with ferret go in.
 */
export function factEmbeddingText(fact: MemoryFact): string {
  const columns = fact.kind === "column_format" ? [fact.column] : fact.filters.map((f) => f.column);
  const known = COLUMNS.get(fact.table);
  const described = columns.flatMap((c) => {
    const d = known?.get(c)?.description;
    return d ? [`${c}: ${d}`] : [];
  });
  return [factText(fact), tableDef(fact.table)?.description ?? "", ...described].filter(Boolean).join("\n");
}
