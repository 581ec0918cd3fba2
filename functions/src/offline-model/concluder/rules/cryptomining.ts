import { humanBytes } from "../../evidence/facts.js";
import { intelHas, isBad } from "../../evidence/intel.js";
import type { FlowEvidence } from "../../evidence/types.js";
import { isPublicIp } from "../../net.js";
import type { Subject } from "../../subject.js";
import {
  absence,
  confidenceFrom,
  type Decision,
  dropAbsent,
  keyFinding,
  spanText,
  sumCount,
} from "../decision.js";
import type { EvidenceIndex, Located } from "../evidence-index.js";

/** Ports mining pools listen on (stratum and common pool front ends). */
const POOL_PORTS = new Set([
  3333, 3334, 3357, 4444, 5555, 5556, 6666, 7777, 8888, 9999, 14433, 14444, 45560, 45700,
]);
const MINER_TEXT =
  /xmrig|stratum\+tcp|minerd|cpuminer|hashrate|\bmining\b|randomx|cryptonight|nicehash|nanopool|2miner/i;

/** Bytes per step, the largest: two steps seeing the same flows must not double them. */
function bytesAcrossSteps(flows: readonly Located<FlowEvidence>[]): number {
  const perStep = new Map<string, number>();
  for (const f of flows) perStep.set(f.stepId, (perStep.get(f.stepId) ?? 0) + (f.evidence.bytes ?? 0));
  return Math.max(0, ...perStep.values());
}

/** Sustained: more than a blip (several flow records, a megabyte, or ten minutes of contact). */
function sustained(flows: readonly Located<FlowEvidence>[]): boolean {
  const count = sumCount(flows);
  const bytes = bytesAcrossSteps(flows);
  const starts = flows.map((f) => Date.parse(f.evidence.first ?? "")).filter(Number.isFinite);
  const ends = flows.map((f) => Date.parse(f.evidence.last ?? "")).filter(Number.isFinite);
  const minutes = starts.length && ends.length ? (Math.max(...ends) - Math.min(...starts)) / 60_000 : 0;
  return count >= 3 || bytes >= 1024 * 1024 || minutes >= 10;
}

/**
 * Cryptomining verdict rules:
 * - true_positive when intel marks a pool indicator (IP, domain or binary hash) malicious or as
 *   mining infrastructure AND the workload talked to it (flows, DNS) or ran a miner (host logs);
 *   also on sustained flows to the finding's pool IPs alone, or on a malicious pool indicator alone
 *   (lower confidence);
 * - false_positive when intel clears every indicator and a populated flow log shows no contact;
 * - inconclusive otherwise.
 */
export function cryptominingRules(subject: Subject, index: EvidenceIndex): Decision {
  const indicators = [...subject.remoteIps, ...subject.domains, ...subject.hashes];
  const intel = dropAbsent(indicators.map((v) => index.intelFor(v)));
  const badIntel = intel.filter((i) => isBad(i.evidence) || intelHas(i.evidence, "mining"));
  const miningIntelIps = index
    .of("intel")
    .filter((i) => i.evidence.type === "ip" && (isBad(i.evidence) || intelHas(i.evidence, "mining")))
    .map((i) => i.evidence.value);
  const dns = index
    .of("dns")
    .filter((d) =>
      subject.domains.some((dom) => d.evidence.query === dom || d.evidence.query.endsWith(`.${dom}`)),
    );
  const poolIps = new Set([
    ...subject.remoteIps,
    ...miningIntelIps,
    ...dns.flatMap((d) => d.evidence.answers.filter(isPublicIp)),
  ]);
  const poolFlows = index.of("flow").filter((f) => poolIps.has(f.evidence.remoteIp));
  const portFlows = index
    .of("flow")
    .filter(
      (f) =>
        !poolIps.has(f.evidence.remoteIp) &&
        f.evidence.port !== undefined &&
        POOL_PORTS.has(f.evidence.port) &&
        isPublicIp(f.evidence.remoteIp),
    );
  const minerLines = index
    .of("host_line")
    .filter(
      (l) =>
        MINER_TEXT.test(l.evidence.text) || subject.processNames.some((p) => l.evidence.text.includes(p)),
    );

  const hasFlows = poolFlows.length > 0;
  const isSustained = hasFlows && sustained(poolFlows);
  const bytes = bytesAcrossSteps(poolFlows);
  const findings = dropAbsent([
    keyFinding(
      `Threat intelligence marks ${badIntel.map((i) => i.evidence.value).join(", ")} as ${[...new Set(badIntel.map((i) => i.evidence.verdict))].join("/")} mining-related infrastructure.`,
      badIntel,
    ),
    hasFlows
      ? keyFinding(
          `The workload exchanged ${sumCount(poolFlows)} flow record(s) (${humanBytes(bytes)}) with pool IP(s) ${[...new Set(poolFlows.map((f) => f.evidence.remoteIp))].join(", ")}${spanText(poolFlows)}.`,
          poolFlows,
        )
      : keyFinding(
          `No flows to the pool IPs ${subject.remoteIps.join(", ")} were found.`,
          [],
          absence(index, /flow/i, "VPC flow logs"),
        ),
    keyFinding(`The pool domain was resolved ${sumCount(dns)} time(s).`, dns),
    keyFinding(`Host logs show the miner: ${minerLines.length} matching line(s).`, minerLines),
    keyFinding(
      `Further egress on mining-pool ports to ${[...new Set(portFlows.map((f) => f.evidence.remoteIp))].slice(0, 5).join(", ")}.`,
      portFlows,
    ),
  ]);

  const activity = [isSustained, dns.length > 0, minerLines.length > 0].filter(Boolean).length;
  const base: Omit<Decision, "verdict" | "confidence" | "severity" | "rule"> = {
    findings,
    mitre: [],
    actions: [],
    openQuestions: [],
    iocs: [
      ...badIntel.map((i) => ({
        type: i.evidence.type,
        value: i.evidence.value,
        context: `mining infrastructure per threat intel (${i.evidence.verdict})`,
      })),
      ...[...new Set(poolFlows.map((f) => f.evidence.remoteIp))].map((ip) => ({
        type: "ip" as const,
        value: ip,
        context: "mining pool contacted by the workload",
      })),
      ...[...new Set(portFlows.map((f) => f.evidence.remoteIp))].map((ip) => ({
        type: "ip" as const,
        value: ip,
        context: "egress on a mining-pool port",
      })),
      ...subject.hashes.map((h) => ({
        type: "hash" as const,
        value: h,
        context: "miner binary named by the finding",
      })),
    ],
  };
  const workload = subject.instance ?? subject.resourceShort;
  // The card's one line: the pool indicator intel names (a domain or IP reads faster than a
  // hash) and what the workload was seen doing with it.
  const named = (badIntel.find((i) => i.evidence.type !== "hash") ?? badIntel[0])?.evidence.value;
  const contact = hasFlows
    ? `${workload} exchanged ${humanBytes(bytes)} with the pool at ${[...new Set(poolFlows.map((f) => f.evidence.remoteIp))].slice(0, 2).join(", ")} (${sumCount(poolFlows)} flow records)`
    : dns.length > 0
      ? `${workload} resolved the pool domain ${sumCount(dns)} time(s)`
      : minerLines.length > 0
        ? `${workload}'s own logs show a miner (${minerLines.length} line(s))`
        : undefined;
  const why = [named ? `Threat intelligence marks ${named} as mining infrastructure` : undefined, contact]
    .filter(Boolean)
    .join(" and ");
  const tp = (confidence: number, rule: string): Decision => ({
    ...base,
    verdict: "true_positive",
    confidence,
    severity: "HIGH",
    rule,
    ...(why ? { why: `${why}.` } : {}),
    mitre: [{ tactic: "Impact", techniqueId: "T1496", techniqueName: "Resource Hijacking" }],
    actions: [
      {
        action: `Isolate ${subject.instance ?? subject.resourceShort} (remove external IP or apply a deny-egress firewall tag) and snapshot its disk for forensics.`,
        priority: "immediate",
        respondWith: "add_deny_egress_tag",
      },
      {
        action: `Block egress to ${[...poolIps].slice(0, 5).join(", ") || "the pool endpoints"} and the pool domains at the VPC firewall / Cloud DNS policy.`,
        priority: "immediate",
      },
      {
        action:
          "Find the entry point: startup scripts, SSH keys, exposed services and recent admin activity on the workload; rotate credentials it held.",
        priority: "soon",
      },
      { action: "Rebuild the workload from a trusted image rather than cleaning it.", priority: "soon" },
    ],
  });

  if (badIntel.length > 0 && (isSustained || activity > 0)) {
    return tp(
      confidenceFrom(0.88, activity + (isSustained ? 1 : 0) - 1),
      "Rule: a malicious or mining-tagged pool indicator plus observed mining activity from the workload → true_positive.",
    );
  }
  if (isSustained)
    return tp(
      confidenceFrom(0.8, activity - 1),
      "Rule: sustained flows to the finding's pool IPs → true_positive.",
    );
  if (badIntel.length > 0) {
    return {
      ...tp(
        0.72,
        "Rule: threat intel marks the pool indicator malicious; traffic was not confirmed in the logs → true_positive at lower confidence.",
      ),
      openQuestions: [
        "Flow logs did not confirm traffic to the pool: is flow logging enabled on the workload's subnet?",
      ],
    };
  }
  if (minerLines.length > 0)
    return tp(0.7, "Rule: the host's own logs show a miner running → true_positive.");

  const cleared = intel.length > 0 && intel.every((i) => i.evidence.verdict === "benign");
  if (cleared && !hasFlows && index.populated(/flow/i)) {
    return {
      signals: dropAbsent([
        "threat intel clears every indicator",
        "populated flow log holds no contact with them",
        minerLines.length === 0 && index.populated(/syslog|host/i) && "populated host log shows no miner",
      ]),
      ...base,
      verdict: "false_positive",
      confidence: 0.6,
      severity: "LOW",
      rule: "Rule: intel clears every indicator and a populated flow log shows no contact with them → false_positive.",
      actions: [
        {
          action:
            "Review the detector's match on this workload (hash or YARA rule) and tune it if the binary is legitimate.",
          priority: "later",
        },
      ],
    };
  }
  return {
    ...base,
    verdict: "inconclusive",
    confidence: 0.35,
    severity: "MEDIUM",
    rule: "Rule: neither intel nor the logs settle whether the workload mined → inconclusive.",
    actions: [
      {
        action: `Inspect ${subject.instance ?? subject.resourceShort} directly (process list, CPU, outbound connections).`,
        priority: "soon",
      },
    ],
    openQuestions: [
      `Did ${subject.instance ?? subject.resourceShort} connect to ${subject.remoteIps.join(", ") || "a mining pool"}? Flow logs were ${index.queried(/flow/i) ? "empty" : "not available"}.`,
      "Is the flagged binary still present and running?",
    ],
  };
}
