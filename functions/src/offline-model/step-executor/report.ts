import { type Ioc, mergeIocs } from "../../domain/ioc.js";
import type { StepReport } from "../../domain/results.js";
import { acceptedLogins, failedAttempts } from "../evidence/counting.js";
import { factOf, humanBytes, iocsOf } from "../evidence/facts.js";
import { keyOf, mergeAcrossCalls } from "../evidence/merge.js";
import { isRowQuery, readCall } from "../evidence/read-call.js";
import { rowSetOf } from "../evidence/rows.js";
import type { Evidence, ReadCall } from "../evidence/types.js";
import type { Intent } from "../intents.js";
import { marked } from "../provenance.js";
import { tagOf } from "./calls.js";
import type { Exchange } from "./exchanges.js";
import { sourceOf } from "./sources.js";

const MAX_FACTS = 20;
const MAX_IOCS = 50;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function tableNames(data: unknown): string[] {
  const list = Array.isArray(data)
    ? data
    : typeof data === "object" && data !== null
      ? Object.values(data).find(Array.isArray)
      : undefined;
  if (!Array.isArray(list)) return [];
  return list
    .map((t) =>
      typeof t === "string"
        ? t
        : typeof t === "object" && t !== null && typeof (t as { name?: unknown }).name === "string"
          ? (t as { name: string }).name
          : "",
    )
    .filter(Boolean)
    .slice(0, 20);
}

function probeFact(exchange: Exchange): string {
  const rows = rowSetOf(exchange.record.data)?.rows ?? [];
  const values = rows
    .slice(0, 8)
    .map((r) => `${String(r.value ?? "(null)")} (${String(r.n ?? "?")})`)
    .join(", ");
  return `${sourceOf(exchange.record)}: values present in the wider window: ${values || "none — the table holds no rows in that window"}`;
}

function windowOf(exchange: Exchange): string {
  const sql = String(exchange.record.args.sql ?? "");
  const times = sql.match(/\d{4}-\d{2}-\d{2}T[\d:]+Z/g) ?? [];
  return times.length >= 2 ? ` between ${times[0]} and ${times[1]}` : "";
}

/** One headline per evidence kind, so the totals are stated once and not left to the reader. */
function headlines(evidence: readonly Evidence[]): string[] {
  const out: string[] = [];
  const flows = evidence.filter((e) => e.kind === "flow");
  if (flows.length > 0) {
    const count = flows.reduce((n, f) => n + f.count, 0);
    const bytes = flows.reduce((n, f) => n + (f.bytes ?? 0), 0);
    const remotes = [...new Set(flows.map((f) => f.remoteIp))];
    out.push(
      `${count} flow record(s) with ${remotes.length} remote IP(s) (${remotes.slice(0, 4).join(", ")}), ${humanBytes(bytes)} in total`,
    );
  }
  const auth = evidence.filter((e) => e.kind === "auth");
  if (auth.length > 0) {
    const failed = failedAttempts(auth);
    const accepted = auth.filter((a) => a.outcome === "accepted");
    const acceptedCount = acceptedLogins(auth);
    const from = [...new Set(accepted.map((a) => `${a.user ?? "?"}@${a.sourceIp ?? "?"}`))]
      .slice(0, 4)
      .join(", ");
    out.push(
      `${failed} failed and ${acceptedCount} accepted login(s)${acceptedCount ? ` (accepted: ${from})` : ""}`,
    );
  }
  const dns = evidence.filter((e) => e.kind === "dns");
  if (dns.length > 0)
    out.push(
      `${dns.reduce((n, d) => n + d.count, 0)} DNS quer(ies) for ${[...new Set(dns.map((d) => d.query))].slice(0, 4).join(", ")}`,
    );
  const reads = evidence.filter((e) => e.kind === "object_read");
  if (reads.length > 0) {
    const anonymous = reads.filter((r) => !r.principal).reduce((n, r) => n + r.count, 0);
    out.push(`${reads.reduce((n, r) => n + r.count, 0)} object read(s), ${anonymous} anonymous`);
  }
  const grants = evidence.flatMap((e) =>
    e.kind === "audit" ? e.bindings.filter((b) => b.action === "ADD") : [],
  );
  if (grants.length > 0)
    out.push(
      `${grants.length} role grant(s): ${grants
        .slice(0, 3)
        .map((g) => `${g.role} → ${g.member}`)
        .join("; ")}`,
    );
  const audit = evidence.filter((e) => e.kind === "audit");
  if (audit.length > 0 && grants.length === 0)
    out.push(
      `${audit.reduce((n, a) => n + a.count, 0)} audit-log call(s), methods ${[...new Set(audit.map((a) => a.method))].slice(0, 4).join(", ")}`,
    );
  const intel = evidence.filter((e) => e.kind === "intel");
  if (intel.length > 0)
    out.push(
      `intel: ${intel
        .map((i) => `${i.value} ${i.verdict}`)
        .slice(0, 5)
        .join(", ")}`,
    );
  const lines = evidence.filter((e) => e.kind === "host_line");
  if (lines.length > 0) out.push(`${lines.length} matching host log line(s)`);
  const history = evidence.filter((e) => e.kind === "history");
  if (history.length > 0) {
    const fresh = history.filter((h) => h.daysBefore === 0 && h.callsRecent > 0);
    const days = Math.max(0, ...history.map((h) => h.daysBefore));
    out.push(
      `history of ${[...new Set(history.map((h) => h.principal ?? "?"))].slice(0, 2).join(", ")}: ${history.length} origin/method pattern(s), up to ${days} earlier day(s); ${fresh.length} first seen in the window`,
    );
  }
  const denials = evidence.filter((e) => e.kind === "denied_allowed");
  if (denials.length > 0) {
    const turned = denials.filter((d) => d.firstAllowedAfter);
    out.push(
      `${denials.reduce((n, d) => n + d.denied, 0)} denied call(s) from ${denials.length} caller(s); ${turned.length} later allowed`,
    );
  }
  const http = evidence.filter((e) => e.kind === "http_request");
  if (http.length > 0) {
    const refused = http.filter((h) => /deny/i.test(h.outcome ?? "") || (h.status ?? 0) === 403);
    out.push(
      `${http.reduce((n, h) => n + h.count, 0)} load balancer request(s), ${refused.reduce((n, h) => n + h.count, 0)} refused at the edge`,
    );
  }
  return out;
}

/** Ranks evidence so the facts list leads with what decides verdicts. */
const RANK: Record<Evidence["kind"], number> = {
  intel: 0,
  auth: 1,
  audit: 2,
  object_read: 3,
  flow: 4,
  dns: 5,
  host_line: 6,
  denied_allowed: 1,
  history: 2,
  http_request: 3,
};

/**
 * The step's final answer, built only from what the tools returned: counts, bytes, ports,
 * times and principals quoted from the rows, IOCs with the context they were seen in.
 */
export function buildReport(
  exchanges: readonly Exchange[],
  intent: Intent,
  note?: string,
  /** How the summary names who answered: a plan step, or the log analyst. */
  who = "Step",
): StepReport {
  if (exchanges.length === 0) {
    return {
      outcome: note ? "no_data" : "failed",
      summary: marked(note ?? "No tool this step may use fits its question, so nothing was run."),
      facts: [],
      iocs: [],
    };
  }
  const reads: { exchange: Exchange; read: ReadCall }[] = exchanges.map((exchange) => ({
    exchange,
    read: readCall(exchange.record),
  }));
  const evidence = mergeAcrossCalls(reads.map((r) => r.read.evidence));
  const facts: string[] = [];
  const sorted = [...evidence].sort(
    (a, b) => RANK[a.kind] - RANK[b.kind] || ("count" in b ? b.count : 0) - ("count" in a ? a.count : 0),
  );
  const errors: string[] = [];
  let emptyQueries = 0;
  let okCalls = 0;
  for (const { exchange, read } of reads) {
    const tag = tagOf(exchange.id);
    const { record } = exchange;
    if (!record.ok) {
      errors.push(`${sourceOf(record)} failed: ${clip(record.summary || "no detail", 300)}`);
      continue;
    }
    if (tag === "probe") {
      facts.push(probeFact(exchange));
      continue;
    }
    if (tag === "tables" || /tables/i.test(record.name)) {
      facts.push(`log tables available: ${tableNames(record.data).join(", ") || "(none listed)"}`);
      continue;
    }
    okCalls += 1;
    if (isRowQuery(record) && (read.rows ?? 0) === 0) {
      emptyQueries += 1;
      facts.push(
        `${sourceOf(record)}: 0 rows${windowOf(exchange)}${tag === "wide" ? " (widened window)" : ""}`,
      );
    } else if (isRowQuery(record) && read.evidence.length === 0) {
      facts.push(
        `${sourceOf(record)}: ${read.rows} row(s) of a shape the rules do not interpret; see the tool call data`,
      );
    }
  }
  const evidenceFacts = sorted.map((e) => factOf(e, sourceLabel(e, reads)));
  const all = [...headlines(evidence).map((h) => `totals: ${h}`), ...evidenceFacts, ...facts, ...errors].map(
    (f) => clip(f, 500),
  );
  const iocs: Ioc[] = mergeIocs(...evidence.map(iocsOf)).slice(0, MAX_IOCS);
  const outcome: StepReport["outcome"] =
    evidence.length > 0 ? "answered" : okCalls > 0 ? "no_data" : "failed";
  const what = headlines(evidence).join("; ");
  const summary =
    outcome === "answered"
      ? `${who} ${intent.kind.replace(/_/g, " ")}: ${what}.`
      : outcome === "no_data"
        ? `${who} ${intent.kind.replace(/_/g, " ")}: ${emptyQueries} quer(ies) returned no rows, including the recovery attempt; absence in this source is not proof of innocence.`
        : `${who} ${intent.kind.replace(/_/g, " ")}: every tool call failed (${errors.slice(0, 2).join(" | ")}).`;
  return { outcome, summary: clip(marked(summary), 2_000), facts: all.slice(0, MAX_FACTS), iocs };
}

function sourceLabel(e: Evidence, reads: readonly { exchange: Exchange; read: ReadCall }[]): string {
  const hit = reads.find(({ read }) => read.evidence.some((x) => sameActivity(x, e)));
  return hit ? sourceOf(hit.exchange.record) : "tool";
}

function sameActivity(a: Evidence, b: Evidence): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "intel":
      return b.kind === "intel" && a.value === b.value;
    case "flow":
      return b.kind === "flow" && a.remoteIp === b.remoteIp && a.port === b.port;
    case "dns":
      return b.kind === "dns" && a.query === b.query;
    case "auth":
      return b.kind === "auth" && a.outcome === b.outcome && a.sourceIp === b.sourceIp;
    case "audit":
      return b.kind === "audit" && a.method === b.method;
    case "object_read":
      return b.kind === "object_read" && a.object === b.object;
    case "host_line":
      return b.kind === "host_line" && a.text === b.text;
    case "history":
    case "denied_allowed":
    case "http_request":
      return keyOf(a) === keyOf(b);
  }
}
