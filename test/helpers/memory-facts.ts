import { createHash } from "node:crypto";
import { type MemoryFact, MemoryFactSchema } from "../../functions/src/memory/fact.js";
import { type FieldDef, LOG_TABLES } from "../../functions/src/sql/log-schema.js";

function scalarPaths(fields: readonly FieldDef[], prefix = ""): string[] {
  return fields.flatMap((f) => {
    const path = prefix ? `${prefix}.${f.name}` : f.name;
    return typeof f.type === "string" ? [path] : scalarPaths(f.type, path);
  });
}

/** One column_format fact per (table, leaf column) of the shipped schema, all valid. */
const FACTS: readonly MemoryFact[] = LOG_TABLES.flatMap((t) =>
  scalarPaths(t.fields).map((column) =>
    MemoryFactSchema.parse({ kind: "column_format", table: t.name, column, format: "raw_text_line" }),
  ),
);

/**
 * A valid fact for tests that need "some memory": by index (distinct up to the number of
 * leaf columns in the schema, a few hundred), or by a label (hashed; stable across runs).
 */
export function sampleFact(key: number | string): MemoryFact {
  const i = typeof key === "number" ? key : createHash("sha256").update(key).digest().readUInt32BE(0);
  return FACTS[i % FACTS.length] as MemoryFact;
}
