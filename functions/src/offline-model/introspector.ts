import type { IntrospectorBrief } from "../agent/briefs.js";
import type { JsonValue } from "../domain/json.js";
import type { Introspection } from "../memory/introspection.js";
import { MAX_CLAIM_CHARS } from "../memory/memory.js";
import { marked } from "./provenance.js";
import { type SessionCall, sessionCalls } from "./session-calls.js";
import { filteredFields } from "./sql-fields.js";

/**
 * The offline introspector's rules, deterministic and lexical (no understanding):
 * - claims: for each successful SQL query, the fields its WHERE clause filtered on, per
 *   table ("filtering on them works"); for each successful schema lookup of a table, that
 *   the table exists. Row counts and values are this session's results and never claims.
 * - harmful: a provided memory whose field names (dotted paths; all its identifiers when it
 *   names none) appear in a failed call and in no successful one.
 * - helpful: otherwise, a provided memory any of whose identifiers appear in the arguments
 *   of a successful call.
 * - anything else is neither; ids come only from the provided memories.
 */
export function introspectionFor(brief: IntrospectorBrief): Introspection {
  const calls = sessionCalls(brief.session.transcript);
  const helpful: string[] = [];
  const harmful: string[] = [];
  for (const memory of brief.recalled) {
    const terms = claimTerms(memory.claim);
    if (terms.all.length === 0) continue;
    const fields = terms.fields.length > 0 ? terms.fields : terms.all;
    const ok = calls.filter((c) => c.ok);
    const failed = calls.filter((c) => !c.ok);
    const usedOk = (ts: readonly string[]) => ok.some((c) => ts.some((t) => argsText(c).includes(t)));
    const usedFailed = failed.some((c) =>
      fields.some((t) => argsText(c).includes(t) || c.summary.toLowerCase().includes(t)),
    );
    if (usedFailed && !usedOk(fields)) harmful.push(memory.id);
    else if (usedOk(terms.all)) helpful.push(memory.id);
  }
  return {
    claims: claimsFrom(calls).slice(0, brief.maxClaims),
    helpfulMemoryIds: helpful,
    harmfulMemoryIds: harmful,
  };
}

function claimsFrom(calls: readonly SessionCall[]): string[] {
  const claims = new Set<string>();
  for (const call of calls) {
    if (!call.ok) continue;
    const sql = stringArg(call.args, "sql");
    const parsed = sql ? filteredFields(sql) : undefined;
    if (parsed && parsed.fields.length > 0 && parsed.tables.length > 0) {
      const where =
        parsed.tables.length === 1
          ? `table \`${parsed.tables[0]}\``
          : `a query over ${list(parsed.tables.slice(0, 4))}`;
      const text = `In ${where}, filtering on ${list(parsed.fields.slice(0, 8))} works: a query with these conditions ran without error.`;
      claims.add(marked(text).slice(0, MAX_CLAIM_CHARS));
    }
    const table = call.name === "log_tables" ? stringArg(call.args, "table") : undefined;
    if (table) {
      claims.add(
        marked(`Table \`${table}\` exists in the log dataset; log_tables lists its fields.`).slice(
          0,
          MAX_CLAIM_CHARS,
        ),
      );
    }
  }
  return [...claims];
}

/** Identifiers a claim names: `backticked`, dotted paths and snake_case names, lower-cased. */
export function claimTerms(claim: string): { all: string[]; fields: string[] } {
  const backticked = [...claim.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
  const dotted = claim.match(/\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\b/g) ?? [];
  const snake = claim.match(/\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b/g) ?? [];
  const lower = (xs: readonly string[]) => [...new Set(xs.map((x) => x.toLowerCase()))];
  const all = lower([...backticked, ...dotted, ...snake]);
  return { all, fields: all.filter((t) => t.includes(".")) };
}

function argsText(call: SessionCall): string {
  return JSON.stringify(call.args).toLowerCase();
}

function stringArg(args: JsonValue, key: string): string | undefined {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  const value = args[key];
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function list(names: readonly string[]): string {
  return names.map((n) => `\`${n}\``).join(", ");
}
