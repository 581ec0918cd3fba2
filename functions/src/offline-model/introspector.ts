import type { IntrospectorBrief } from "../agent/briefs.js";
import type { JsonValue } from "../domain/json.js";
import { factKey, MAX_FILTERS, type MemoryFact, MemoryFactSchema } from "../memory/fact.js";
import type { Introspection } from "../memory/introspection.js";
import { type SessionCall, sessionCalls } from "./session-calls.js";
import { filteredFields } from "./sql-fields.js";

/**
 * The offline introspector's rules, deterministic and lexical (no understanding):
 * - facts: for each successful SQL query over one table, the shape of its WHERE conditions
 *   whose column and form could be read ("these conditions ran"), as a query_shape fact;
 *   a shape the fact type refuses (a column the schema does not know, a repeated field) is
 *   not written. Row counts and values are this session's results and never facts.
 * - harmful: a provided memory whose columns appear in a failed call and in no successful one.
 * - helpful: otherwise, a provided memory whose table or columns appear in the arguments of
 *   a successful call.
 * - anything else is neither; ids come only from the provided memories.
 */
export function introspectionFor(brief: IntrospectorBrief): Introspection {
  const calls = sessionCalls(brief.session.transcript);
  const helpful: string[] = [];
  const harmful: string[] = [];
  for (const memory of brief.recalled) {
    const terms = factTerms(memory.fact);
    const ok = calls.filter((c) => c.ok);
    const failed = calls.filter((c) => !c.ok);
    const usedOk = (ts: readonly string[]) => ok.some((c) => ts.some((t) => argsText(c).includes(t)));
    const usedFailed = failed.some((c) =>
      terms.fields.some((t) => argsText(c).includes(t) || c.summary.toLowerCase().includes(t)),
    );
    if (usedFailed && !usedOk(terms.fields)) harmful.push(memory.id);
    else if (usedOk(terms.all)) helpful.push(memory.id);
  }
  return {
    facts: factsFrom(calls).slice(0, brief.maxFacts),
    helpfulMemoryIds: helpful,
    harmfulMemoryIds: harmful,
  };
}

function factsFrom(calls: readonly SessionCall[]): MemoryFact[] {
  const facts = new Map<string, MemoryFact>();
  for (const call of calls) {
    if (!call.ok) continue;
    const sql = stringArg(call.args, "sql");
    const parsed = sql ? filteredFields(sql) : undefined;
    if (parsed?.tables.length !== 1 || parsed.filters.length === 0) continue;
    const candidate = {
      kind: "query_shape",
      table: parsed.tables[0],
      filters: parsed.filters
        .slice(0, MAX_FILTERS)
        .map((f) => ({ column: f.field, test: f.test, ...(f.cast ? { cast: f.cast } : {}) })),
    };
    // The same type the model's answer is parsed with decides: a shape it refuses is not a fact.
    const fact = MemoryFactSchema.safeParse(candidate);
    if (fact.success) facts.set(factKey(fact.data), fact.data);
  }
  return [...facts.values()];
}

/** The identifiers a fact names, lower-cased: its table and its columns. */
export function factTerms(fact: MemoryFact): { all: string[]; fields: string[] } {
  const columns = fact.kind === "column_format" ? [fact.column] : fact.filters.map((f) => f.column);
  const fields = [...new Set(columns.map((c) => c.toLowerCase()))];
  return { all: [fact.table.toLowerCase(), ...fields], fields };
}

function argsText(call: SessionCall): string {
  return JSON.stringify(call.args).toLowerCase();
}

function stringArg(args: JsonValue, key: string): string | undefined {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  const value = args[key];
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}
