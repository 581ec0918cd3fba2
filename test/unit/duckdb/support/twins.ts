import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DuckDbLogWarehouse } from "../../../../functions/src/adapters/duckdb/warehouse.js";
import type { QueryRequest } from "../../../../functions/src/ports/log-warehouse.js";

/**
 * Logs with identity twins (decision 0046): copies of the rows that name a value, with the value
 * made a longer name that contains it. A query about the value must answer the same over them.
 */

/** A character that continues a name: a letter, a digit, or one of _ . @ - (the runbooks' rule). */
export const NAME_CHAR = /[\p{L}\p{N}_.@-]/u;

/** The longer names that contain `value`: one more name character on each side that is a name. */
export function twinsOf(value: string): string[] {
  const out: string[] = [];
  if (NAME_CHAR.test(value.at(0) ?? "")) out.push(`x${value}`);
  if (NAME_CHAR.test(value.at(-1) ?? "")) out.push(`${value}0`);
  return out;
}

/** The row with every occurrence of `value`, in every string, replaced by `twin`. */
function twinRow(row: unknown, value: string, twin: string, tag: string): unknown {
  const walk = (v: unknown): unknown =>
    typeof v === "string"
      ? v.replaceAll(value, twin)
      : Array.isArray(v)
        ? v.map(walk)
        : v !== null && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
          : v;
  const out = walk(row) as Record<string, unknown>;
  if (typeof out.insertId === "string") out.insertId = `${out.insertId}-${tag}`;
  return out;
}

/**
 * The scenario's logs with, for each of the case's values, a copy of every row naming it where
 * that value alone became each of its twins: a twin row differs from the case in one identity.
 */
export function twinnedLogs(dir: string, values: readonly string[]): { dir: string; twins: number } {
  const out = mkdtempSync(join(tmpdir(), "ferret-twins-"));
  let twins = 0;
  for (const file of readdirSync(join(dir, "logs"))) {
    const lines = readFileSync(join(dir, "logs", file), "utf8")
      .split("\n")
      .filter(Boolean);
    const added = values.flatMap((v, i) =>
      lines
        .filter((line) => line.includes(v))
        .flatMap((line) =>
          twinsOf(v).map((twin, k) => JSON.stringify(twinRow(JSON.parse(line), v, twin, `twin${i}.${k}`))),
        ),
    );
    twins += added.length;
    writeFileSync(join(out, file), `${[...lines, ...added].join("\n")}\n`);
  }
  return { dir: out, twins };
}

/**
 * Every row of every page, sorted (ties in ORDER BY may come back in any order), with the
 * columns the statement fills by ANY_VALUE left out: the engine may pick any row of the group,
 * so they are compared by `twinFree` instead.
 */
async function allRows(warehouse: DuckDbLogWarehouse, request: QueryRequest): Promise<string[]> {
  const sampled = [...request.sql.matchAll(/ANY_VALUE\([^)]*\)\s+AS\s+(\w+)/gi)].map((m) => m[1] as string);
  const rows: string[] = [];
  let token: string | undefined;
  do {
    const page = await warehouse.query({ ...request, ...(token ? { pageToken: token } : {}) });
    rows.push(
      ...page.rows.map((r) =>
        JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => !sampled.includes(k)))),
      ),
    );
    token = page.nextPageToken;
  } while (token);
  return rows.sort();
}

/** The whole answer, sampled columns included, as text: no twin of the values may appear in it. */
async function answerText(warehouse: DuckDbLogWarehouse, request: QueryRequest): Promise<string> {
  const parts: string[] = [];
  let token: string | undefined;
  do {
    const page = await warehouse.query({ ...request, ...(token ? { pageToken: token } : {}) });
    parts.push(JSON.stringify(page.rows));
    token = page.nextPageToken;
  } while (token);
  return parts.join("\n");
}

/**
 * The query answers the same over the twinned logs as over the originals, and no twin of the
 * values shows up anywhere in its answer (sampled columns included). Returns the rows compared.
 */
export async function assertTwinsIgnored(
  original: DuckDbLogWarehouse,
  twinned: DuckDbLogWarehouse,
  request: QueryRequest,
  values: readonly string[],
  label: string,
): Promise<string[]> {
  const before = await allRows(original, request);
  // An answer cut at its LIMIT keeps an arbitrary few of the rows tied at the cut: then only the
  // check below (no twin anywhere in the answer) holds.
  const limit = Number(/\bLIMIT\s+(\d+)\s*$/i.exec(request.sql.trim())?.[1] ?? Number.POSITIVE_INFINITY);
  if (before.length < limit)
    assert.deepEqual(await allRows(twinned, request), before, `${label} returned a twin's rows`);
  const [was, is] = await Promise.all([answerText(original, request), answerText(twinned, request)]);
  for (const twin of values.flatMap(twinsOf))
    assert.ok(was.includes(twin) || !is.includes(twin), `${label} shows the twin ${twin}`);
  return before;
}

/**
 * For a runbook whose answer is the history of the actors that touched the value (subject
 * "actors"): the same principals answer over the twinned logs, and no twin shows up. A twin
 * resource the same principal also touched is that principal's history, so the counts may grow.
 */
export async function assertTwinActorsIgnored(
  original: DuckDbLogWarehouse,
  twinned: DuckDbLogWarehouse,
  request: QueryRequest,
  values: readonly string[],
  label: string,
): Promise<string[]> {
  const principals = async (warehouse: DuckDbLogWarehouse) =>
    [
      ...new Set(
        (await allRows(warehouse, request)).map((r) =>
          String((JSON.parse(r) as { principal?: unknown }).principal),
        ),
      ),
    ].sort();
  const before = await principals(original);
  assert.deepEqual(await principals(twinned), before, `${label} answered for a twin's actors`);
  const [was, is] = await Promise.all([answerText(original, request), answerText(twinned, request)]);
  for (const twin of values.flatMap(twinsOf))
    assert.ok(was.includes(twin) || !is.includes(twin), `${label} shows the twin ${twin}`);
  return before;
}
