import type { ResultSummary } from "../../agent/result-summary.js";
import type { Finding } from "../../domain/finding/finding.js";
import { extractIocs } from "../../domain/ioc.js";
import { identifiersOf } from "../../domain/log-identifiers.js";
import type { Step } from "../../domain/plan.js";
import type { Intent, IntentKind, IntentParams } from "../intents.js";
import { isPublicIp } from "../net.js";
import { decodeIntent, safeValues } from "../step-text.js";
import { lookBackStart, type Subject, subjectOf } from "../subject.js";
import { isTimestamp } from "../time-window.js";
import { toolForIntent } from "../tool-choice.js";

/** Keyword rules for steps an LLM wrote (no plan tail): first match wins. */
const KEYWORDS: readonly [RegExp, IntentKind][] = [
  [/load balancer|cloud armor|\bwaf\b|http request|front[\s-]?end/i, "lb_requests"],
  [
    /denied.{0,40}(then|later|and).{0,20}(allowed|succe)|permission[\s_]denied|vpc service controls? (violation|denial)/i,
    "denied_allowed",
  ],
  [
    /first[\s-]seen|history|baseline|usual (address|location|user agent)|habit|never (used|seen) before/i,
    "principal_history",
  ],
  [/threat[\s-]?intel|reputation|\bintel\b|virustotal|\botx\b|blocklist|known[\s-]bad/i, "intel"],
  [/\bdns\b|resolv|query name|queryname/i, "dns"],
  [/\bsshd?\b|\blog[io]n|logon|brute|authenticat|\brdp\b|password/i, "ssh_auth"],
  [/top (external )?destinations|egress|outbound/i, "egress"],
  [/inbound|ingress|who connected to|connected to (the|this) (vm|instance|workload|host)/i, "ingress"],
  [/flow|connection|traffic|bytes|packets|network/i, "flows"],
  [/bucket|storage|object|gs:\/\//i, "bucket_access"],
  [/setiampolicy|iam polic|\bgrant|binding|\brole\b|service[\s-]account key|key creation/i, "iam_changes"],
  [/caller ip|from ip|source ip|callerip/i, "caller_activity"],
  [/principal|api (call|activity)|audit|activity of/i, "principal_activity"],
  [/syslog|process|host|cron|binary|command|startup/i, "host_logs"],
];

function kindFromText(step: Step): IntentKind {
  const onlyIntel = step.tools.every((t) => /intel|reputation/i.test(t));
  if (onlyIntel) return "intel";
  return kindFromWords(`${step.description} ${step.expected}`);
}

/** The intent kind a question's words name; `skip` leaves out kinds the asker cannot serve. */
export function kindFromWords(text: string, skip: readonly IntentKind[] = []): IntentKind {
  const hit =
    KEYWORDS.find(([re, kind]) => !skip.includes(kind) && re.test(text))?.[1] ?? "resource_activity";
  if (
    hit === "bucket_access" &&
    /polic|iam|acl|public|allusers/i.test(text) &&
    !/read|access|download|get/i.test(text)
  )
    return "bucket_policy";
  return hit;
}

export function paramsFromText(text: string): IntentParams {
  const iocs = extractIocs(text, { includePrivateIps: true });
  const of = (type: string) => safeValues(iocs.filter((i) => i.type === type).map((i) => i.value));
  const times = (
    text.match(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g) ?? []
  )
    .filter(isTimestamp)
    .sort();
  const out: IntentParams = {};
  if (of("ip").length) out.ips = of("ip");
  if (of("domain").length) out.domains = of("domain");
  if (of("hash").length) out.hashes = of("hash");
  if (of("email").length) out.principal = of("email");
  if (times.length >= 2) {
    out.start = [new Date(times[0] ?? "").toISOString().replace(/\.\d{3}Z$/, "Z")];
    out.end = [new Date(times.at(-1) ?? "").toISOString().replace(/\.\d{3}Z$/, "Z")];
  }
  return out;
}

function priorIocs(prior: readonly ResultSummary[], type: "ip" | "domain" | "hash"): string[] {
  return prior.flatMap((r) =>
    r.iocs.filter((i) => i.type === type && (type !== "ip" || isPublicIp(i.value))).map((i) => i.value),
  );
}

function fill(
  params: IntentParams,
  key: keyof IntentParams,
  ...candidates: readonly (readonly string[] | string | undefined)[]
): void {
  if (params[key]?.length) return;
  for (const c of candidates) {
    const list = safeValues(c === undefined ? [] : typeof c === "string" ? [c] : c);
    if (list.length > 0) {
      params[key] = list.slice(0, 20);
      return;
    }
  }
}

/**
 * Fills what the step left open from earlier results, then from the finding itself. A value
 * the planner deliberately left out stays out: only parameters the query cannot run without
 * are filled (flows always get their remote IPs, the point of a flow check).
 */
export function enrichIntent(intent: Intent, subject: Subject, prior: readonly ResultSummary[]): Intent {
  const p: IntentParams = { ...intent.params };
  const none = (...keys: (keyof IntentParams)[]) => keys.every((k) => !p[k]?.length);
  switch (intent.kind) {
    case "intel":
      if (none("ips", "domains", "hashes")) {
        fill(p, "ips", priorIocs(prior, "ip"), subject.publicIps);
        fill(p, "domains", priorIocs(prior, "domain"), subject.domains);
        fill(p, "hashes", subject.hashes);
      }
      break;
    case "flows":
      if (none("domains")) fill(p, "ips", [...priorIocs(prior, "ip"), ...subject.remoteIps]);
      if (none("ips", "domains")) fill(p, "instance", subject.instance);
      break;
    case "egress":
    case "ingress":
      fill(p, "instance", subject.instance);
      break;
    case "host_logs":
      fill(p, "instance", subject.instance);
      if (none("terms", "ips", "domains", "hashes")) fill(p, "terms", subject.processNames);
      break;
    case "dns":
      if (none("domains", "instance", "ips")) fill(p, "domains", subject.domains, priorIocs(prior, "domain"));
      if (none("domains", "instance", "ips")) fill(p, "instance", subject.instance);
      break;
    case "ssh_auth":
      if (none("instance", "ips")) fill(p, "instance", subject.instance);
      if (none("instance", "ips")) fill(p, "ips", subject.remoteIps);
      break;
    case "iam_changes":
      if (none("member", "principal"))
        fill(
          p,
          "member",
          subject.granted.map((g) => g.member),
        );
      break;
    case "principal_activity":
      fill(
        p,
        "principal",
        subject.principal,
        subject.granted.map((g) => g.member),
      );
      break;
    case "caller_activity":
      fill(p, "ips", subject.callerIp, subject.publicIps);
      break;
    case "resource_activity":
      fill(p, "resource", subject.auditResource);
      break;
    case "bucket_access":
    case "bucket_policy":
      fill(p, "bucket", subject.bucket);
      break;
    case "principal_history":
      fill(
        p,
        "principal",
        subject.principal,
        subject.granted.map((g) => g.member),
      );
      if (!p.recent?.length) {
        // An LLM-written step names the window; the history is the look-back before it.
        const recent = p.start?.[0] ?? subject.window.start;
        p.recent = [recent];
        p.start = [lookBackStart(recent)];
      }
      break;
    case "lb_requests":
      if (none("ips", "backend")) fill(p, "ips", subject.iocIps);
      if (none("ips", "backend")) fill(p, "backend", identifiersOf(subject.ids, "backend_service"));
      break;
    case "denied_allowed":
      break;
  }
  fill(p, "start", subject.window.start);
  fill(p, "end", subject.window.end);
  return { kind: intent.kind, params: p };
}

/**
 * Whether `enrichIntent` (or `near=prior`) would take a value from earlier results for this
 * intent: a parameter the query cannot run without is left open, or the window is anchored
 * on the dependencies' first event. A step whose intent reads nothing from them depends on
 * them for order only, and its calls can be fixed from the finding alone. Kept next to
 * `enrichIntent` because the two must agree (a unit test checks they do).
 */
export function readsPriorResults(intent: Intent): boolean {
  const p = intent.params;
  const none = (...keys: (keyof IntentParams)[]) => keys.every((k) => !p[k]?.length);
  if (p.near?.[0] === "prior") return true;
  switch (intent.kind) {
    case "intel":
      return none("ips", "domains", "hashes");
    case "flows":
      return none("ips", "domains");
    case "dns":
      return none("domains", "instance", "ips");
    case "principal_history":
      return none("principal", "resource");
    default:
      return false;
  }
}

/**
 * The step's intent: the plan tail when the offline planner wrote it, keywords and values
 * otherwise. A step whose question needs a tool it was not given is served with the tool
 * it has (an intel-only step looks up indicators, a log-only step reads logs).
 */
export function intentForStep(
  step: Step,
  finding: Finding,
  prior: readonly ResultSummary[],
  stepTools: readonly string[],
): Intent {
  const subject = subjectOf(finding);
  const decoded = decodeIntent(step.description);
  const intent = decoded ?? { kind: kindFromText(step), params: paramsFromText(step.description) };
  if (!toolForIntent(intent.kind, stepTools)) {
    if (toolForIntent("intel", stepTools))
      return enrichIntent({ kind: "intel", params: intent.params }, subject, prior);
    if (intent.kind === "intel" && toolForIntent("resource_activity", stepTools)) {
      return enrichIntent({ kind: "caller_activity", params: intent.params }, subject, prior);
    }
  }
  return nearPrior(enrichIntent(intent, subject, prior), step, prior);
}

const NEAR_MINUTES = 5;
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;

/**
 * `near=prior`: look at minutes around the first event the dependencies found (e.g. what
 * ran on a host when it resolved a domain), with no search term, so whatever ran shows.
 * Without such an event the step keeps its own window and terms.
 */
function nearPrior(intent: Intent, step: Step, prior: readonly ResultSummary[]): Intent {
  if (intent.params.near?.[0] !== "prior") return intent;
  const { near: _near, ...rest } = intent.params;
  const sources = prior.filter((r) => step.dependsOn.includes(r.stepId) && r.outcome === "answered");
  const times = sources
    .flatMap((r) => r.facts.flatMap((f) => f.match(ISO) ?? []))
    .map((t) => Date.parse(t))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const first = times[0];
  if (first === undefined) return { kind: intent.kind, params: rest };
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  const { terms: _terms, ...untermed } = rest;
  return {
    kind: intent.kind,
    params: {
      ...untermed,
      start: [iso(first - NEAR_MINUTES * 60_000)],
      end: [iso(first + NEAR_MINUTES * 60_000)],
    },
  };
}
