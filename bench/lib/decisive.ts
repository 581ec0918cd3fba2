import { loadRunbooks } from "../../functions/src/sql/runbooks.js";

/**
 * Whether an investigation queried a scenario's decisive evidence (issue 37, item 3): each
 * probe of expected.json names the runbook and the identity parameters (an IP, a principal, a
 * VM, a bucket) that surface the rows that decide the scenario. A probe marked as a
 * wrong-identifier trap is not evidence and is left out by the caller (bench/lib/scenarios.ts).
 *
 * A probe counts as queried when the run asked its question about the same subject, compared
 * by meaning, never by spelling (decision 0053); the window never matters (a plan may look
 * wider or narrower than the probe):
 * - the same runbook, each identity value the same or one a tail of the other's whole path
 *   segments: the runbooks match a resource name as the tail of the logged full name, so
 *   `harbor-prod` and `projects/harbor-prod` name one project;
 * - a runbook whose answer is about actors (its header's `subject: actors`, e.g. the history of
 *   whoever changed a resource), reading the probe's tables, whose rows name the probe's one
 *   identity, a principal: it read that principal's history without naming it first;
 * - SQL holding every identity value;
 * - the rows that decide were read: calls reading the probe's tables about one of its identity
 *   values (a call filtered on nothing counts when its answer names every one of them; for a
 *   probe with none, only the same runbook counts) whose answers together hold every
 *   string the probe expects in its rows, e.g. a syslog search for `/tmp/` that returned the
 *   `/tmp/.x/udpf` line a search for `udpf` expects. A probe whose evidence is that nothing
 *   comes back has nothing to read, so only asking it counts.
 */
export interface DecisiveProbe {
  runbook: string;
  params: Record<string, string>;
  /** Strings the probe's rows hold (expected.json's `expect`); none for an empty answer. */
  expect?: readonly string[];
}

export interface ToolCallLike {
  name: string;
  args: unknown;
  /** The tool's structured answer; log_query's carries `rows`. */
  data?: unknown;
}

/** What the matcher needs to know of a runbook: the tables it reads and what its answer is about. */
export interface RunbookFacts {
  tables: readonly string[];
  subject: "rows" | "actors";
}

export type RunbookCatalog = (name: string) => RunbookFacts | undefined;

/** The shipped runbooks (functions/runbooks), as the matcher reads them. */
export function shippedRunbooks(): RunbookCatalog {
  const library = loadRunbooks();
  const names = new Set(library.names());
  return (name) => (names.has(name) ? library.get(name) : undefined);
}

export interface DecisiveCoverage {
  /** Probes whose question the investigation asked. */
  queried: number;
  of: number;
  /** The runbook calls it never made, as `runbook(param=value)`. */
  missing: string[];
}

/** Parameters that place a query in time, not on what it is about. */
const WINDOW_PARAMS = new Set(["start", "end", "recent"]);

function identity(params: Record<string, string>): [string, string][] {
  return Object.entries(params)
    .filter(([k]) => !WINDOW_PARAMS.has(k))
    .map(([k, v]) => [k, v.toLowerCase()]);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The two names the same thing, one of them by a tail of the other's whole `/` segments. */
export function sameSubject(asked: string, wanted: string): boolean {
  const a = asked.toLowerCase().replace(/^\/+|\/+$/g, "");
  const w = wanted.toLowerCase().replace(/^\/+|\/+$/g, "");
  return a.length > 0 && w.length > 0 && (a === w || w.endsWith(`/${a}`) || a.endsWith(`/${w}`));
}

function sameTables(a: RunbookFacts, b: RunbookFacts): boolean {
  return a.tables.length === b.tables.length && a.tables.every((t) => b.tables.includes(t));
}

/** The principals an actors runbook's answer named. */
function actorsIn(data: unknown): Set<string> {
  if (!isRecord(data) || !Array.isArray(data.rows)) return new Set();
  return new Set(
    data.rows.flatMap((row) =>
      isRecord(row) && typeof row.principal === "string" ? [row.principal.toLowerCase()] : [],
    ),
  );
}

function asks(call: ToolCallLike, probe: DecisiveProbe, catalog: RunbookCatalog): boolean {
  if (!isRecord(call.args)) return false;
  const wanted = identity(probe.params);
  const { runbook, params, sql } = call.args;
  if (runbook === probe.runbook && isRecord(params))
    return wanted.every(([k, v]) => sameSubject(String(params[k] ?? ""), v));
  if (typeof runbook === "string") {
    const ran = catalog(runbook);
    const asked = catalog(probe.runbook);
    const [only] = wanted;
    return (
      ran?.subject === "actors" &&
      asked !== undefined &&
      sameTables(ran, asked) &&
      wanted.length === 1 &&
      only?.[0] === "principal" &&
      actorsIn(call.data).has(only[1])
    );
  }
  if (typeof sql === "string" && wanted.length > 0) {
    const text = sql.toLowerCase();
    return wanted.every(([, v]) => text.includes(v));
  }
  return false;
}

/** The identity values a call asked about, whatever its runbook. */
function askedValues(call: ToolCallLike): string[] {
  if (!isRecord(call.args) || !isRecord(call.args.params)) return [];
  return identity(
    Object.fromEntries(Object.entries(call.args.params).map(([k, v]) => [k, String(v ?? "")])),
  ).map(([, v]) => v);
}

function rowsText(data: unknown): string {
  return isRecord(data) && Array.isArray(data.rows) ? JSON.stringify(data.rows).toLowerCase() : "";
}

function readRows(probe: DecisiveProbe, calls: readonly ToolCallLike[], catalog: RunbookCatalog): boolean {
  const expect = (probe.expect ?? []).map((e) => e.toLowerCase());
  const asked = catalog(probe.runbook);
  if (expect.length === 0 || !asked) return false;
  const wanted = identity(probe.params).map(([, v]) => v);
  const about = calls.filter((call) => {
    if (!isRecord(call.args) || typeof call.args.runbook !== "string") return false;
    const ran = catalog(call.args.runbook);
    if (!ran || !sameTables(ran, asked)) return false;
    if (wanted.length === 0) return call.args.runbook === probe.runbook;
    const values = askedValues(call);
    // A call filtered on nothing is about every subject: its answer must name the probe's.
    if (values.length === 0) return wanted.every((w) => rowsText(call.data).includes(w));
    return wanted.some((w) => values.some((v) => sameSubject(v, w)));
  });
  const text = about.map((c) => rowsText(c.data)).join("\n");
  return expect.every((e) => text.includes(e));
}

function label(probe: DecisiveProbe): string {
  const values = identity(probe.params).map(([k, v]) => `${k}=${v}`);
  return `${probe.runbook}(${values.join(", ")})`;
}

export function decisiveCoverage(
  probes: readonly DecisiveProbe[],
  calls: readonly ToolCallLike[],
  catalog: RunbookCatalog = () => undefined,
): DecisiveCoverage {
  const missing = probes.filter(
    (p) => !calls.some((c) => asks(c, p, catalog)) && !readRows(p, calls, catalog),
  );
  return { queried: probes.length - missing.length, of: probes.length, missing: missing.map(label) };
}
