import { type Finding, findingIocs } from "./finding/finding.js";
import { accountOf, serviceAccountKeyOwner } from "./finding/indicator-grammar.js";
import type { Ioc } from "./ioc.js";
import { walkIocs } from "./ioc-walk.js";
import type { JsonValue } from "./json.js";
import type { StepResult, ToolCall } from "./results.js";

/**
 * What ties a value the logs showed to the finding, so that the conclusion lists it as an
 * indicator of this incident and not merely because it appeared: a flow log lists every peer a
 * VM talked to (package mirrors, CDNs, Google's own front ends), an audit log every caller. A
 * value is tied when
 * - the finding itself names it (finding-iocs.ts, read by field meaning);
 * - threat intel judged it malicious or suspicious (a verdict a tool's code recorded, never the
 *   model's reading of it);
 * - it sits in a declared indicator column of a log row that also holds one of the finding's own
 *   indicators, or answers a query (a runbook's parameter) for one: the DNS answer for the
 *   finding's domain, the address an added member acted from. The finding's actor (access: the
 *   caller, its delegates, the owner of the key used, the caller's address) is no anchor unless
 *   intel judged it: every row of the actor's history names them, and the addresses and
 *   colleagues they always have say nothing about this incident. A target (a member the activity
 *   added or granted) is one, since all it does afterwards is the incident's; so is what intel
 *   judged malicious or suspicious.
 * Values are compared by kind and value: an e-mail and a principal are one identity; domains,
 * hashes and identities ignore case.
 */

export function tieKey(ioc: Pick<Ioc, "type" | "value">): string {
  const kind = ioc.type === "email" ? "principal" : ioc.type;
  const value = kind === "ip" || kind === "url" ? ioc.value.trim() : ioc.value.trim().toLowerCase();
  return `${kind}:${value}`;
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The string values of a query's parameters (a runbook's `ip`, `domain`, `principal`…). */
function paramValues(params: JsonValue | undefined): string[] {
  if (!isObject(params)) return [];
  return Object.values(params).flatMap((v) =>
    typeof v === "string" ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [],
  );
}

interface Answer {
  params: string[];
  rows: readonly JsonValue[];
}

/**
 * The queries a tool call answered, each with its parameters and rows: log_query's own page, or
 * the queries a log-analysis session ran (their sample rows, as the main agent sees them).
 */
function answersOf(call: ToolCall): Answer[] {
  const data = call.data;
  if (!isObject(data)) return [];
  const own: Answer[] = Array.isArray(data.rows)
    ? [{ params: paramValues(isObject(call.args) ? call.args.params : undefined), rows: data.rows }]
    : [];
  const nested = (Array.isArray(data.queries) ? data.queries : []).flatMap((q): Answer[] =>
    isObject(q) && Array.isArray(q.rows) ? [{ params: paramValues(q.params), rows: q.rows }] : [],
  );
  return [...own, ...nested];
}

/** The finding's acting principals: its caller, the delegation chain and the owner of the key used. */
function actorsOf(finding: Finding): string[] {
  const a = finding.access;
  if (!a) return [];
  return [
    a.principalEmail,
    a.principalSubject,
    ...(a.delegationChain ?? []),
    serviceAccountKeyOwner(a.serviceAccountKeyName ?? ""),
  ]
    .filter((v): v is string => typeof v === "string" && v !== "")
    .map((v) => accountOf(v) ?? v);
}

export interface EvidenceTies {
  /** Why each tied value is tied, by tieKey. */
  readonly ties: ReadonlyMap<string, string>;
  /** Values some log row showed only in a column that declares no indicator (an account, free text). */
  readonly undeclaredOnly: ReadonlySet<string>;
}

const keyValue = (key: string) => key.slice(key.indexOf(":") + 1);

export function evidenceTies(finding: Finding, results: readonly StepResult[]): EvidenceTies {
  const ties = new Map<string, string>();
  const own = findingIocs(finding);
  for (const ioc of own) ties.set(tieKey(ioc), "named by the finding");
  const calls = results.flatMap((r) => r.toolCalls);
  const judged: string[] = [];
  for (const v of calls.flatMap((c) => c.verdicts ?? []))
    if (v.verdict === "malicious" || v.verdict === "suspicious") {
      judged.push(tieKey(v));
      if (!ties.has(tieKey(v))) ties.set(tieKey(v), `threat intel judged it ${v.verdict}`);
    }
  // Anchors: the finding's own indicators but its actor and the actor's address, and what intel judged.
  const anchors = new Set(own.map(tieKey));
  for (const actor of actorsOf(finding)) anchors.delete(tieKey({ type: "principal", value: actor }));
  if (finding.access?.callerIp) anchors.delete(tieKey({ type: "ip", value: finding.access.callerIp }));
  for (const key of judged) anchors.add(key);
  const anchorByValue = new Map([...anchors].map((k) => [keyValue(k).toLowerCase(), keyValue(k)]));
  const declared = new Set<string>();
  const undeclared = new Set<string>();
  for (const answer of calls.flatMap(answersOf)) {
    // A query for an anchor (a runbook's parameter): every row it answers is that value's.
    const asked = answer.params
      .map((v) => anchorByValue.get(v.trim().toLowerCase()))
      .find((v) => v !== undefined);
    for (const [i, row] of answer.rows.entries()) {
      const hits = walkIocs(row, `rows[${i}]`);
      const values = hits
        .filter((h) => h.kind === "ioc" && h.type)
        .map((h) => tieKey({ type: h.type ?? "ip", value: h.value }));
      for (const h of hits)
        if (h.kind === "excluded" && h.rule === "undeclared-column" && h.type)
          undeclared.add(tieKey({ type: h.type, value: h.value }));
      for (const v of values) declared.add(v);
      const inRow = values.find((v) => anchors.has(v));
      const why = asked
        ? `in the answer to a query for the finding's ${asked}`
        : inRow
          ? `in the same log row as the finding's ${keyValue(inRow)}`
          : undefined;
      if (why) for (const v of values) if (!ties.has(v)) ties.set(v, why);
    }
  }
  return { ties, undeclaredOnly: new Set([...undeclared].filter((v) => !declared.has(v) && !ties.has(v))) };
}
