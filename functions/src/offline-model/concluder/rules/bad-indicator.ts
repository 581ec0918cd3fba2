import { intelHas, isBad } from "../../evidence/intel.js";
import type { IntelEvidence } from "../../evidence/types.js";
import { isIpv4, isPublicIp } from "../../net.js";
import type { Subject } from "../../subject.js";
import { absence, confidenceFrom, type Decision, dropAbsent, keyFinding, sumCount } from "../decision.js";
import type { EvidenceIndex } from "../evidence-index.js";

/**
 * Names of security tooling that looks up bad domains on purpose (scanners, EDR, sandboxes,
 * intel enrichment), anchored on token boundaries: "edr" names an EDR agent, not "cathedral"
 * or "fedramp"; "soc" a SOC job, not "social".
 */
export const SECURITY_TOOL =
  /(?:^|[^a-z0-9])(?:ioc[-_ ]?(?:validat|scan|check)[a-z]*|feed[-_ ]?(?:validat|check)[a-z]*|nessus|qualys|nmap|openvas|rapid7|tenable|nuclei|scanners?|scan|security[-_ ]?(?:scan|tool|audit)[a-z]*|edr|crowdstrike|falcon|defender|sentinel(?:one)?|osquery[a-z]*|wazuh|suricata|zeek|urlscan|virustotal|sandbox|threat[-_ ]?intel|soc|pentest|red[-_]?team)(?![a-z0-9])/i;
/** Host activity that resolves names: resolvers, lookups, feed or IOC jobs. */
const RESOLVER_WORK = /resolv|nslookup|\bdig\b|\bhost\s+-|dns|lookup|validat|\bfeed\b|\bioc\b|CRON/i;
const NEAR_MS = 5 * 60_000;
/** Answers that mean "nowhere": sinkhole addresses and empty/blocked responses. */
const NULL_ANSWER = /^(0\.0\.0\.0|127\.\d+\.\d+\.\d+|::1?|::)$/;
const UNLISTED: IntelEvidence = {
  kind: "intel",
  type: "domain",
  value: "",
  verdict: "unknown",
  tags: [],
  sources: [],
  related: [],
} as const;

/**
 * Bad domain / bad IP verdict rules:
 * - benign when the lookup came from a known security tool or was answered by a sinkhole
 *   (intel tag, null answer or NXDOMAIN) AND no connection followed;
 * - true_positive when the workload connected to the flagged or resolved IPs, or intel calls the
 *   indicator malicious and a non-security workload looked it up repeatedly;
 * - false_positive when intel clears the indicators and populated DNS and flow logs show no contact;
 * - inconclusive otherwise.
 */
export function badIndicatorRules(subject: Subject, index: EvidenceIndex): Decision {
  // The flagged addresses: the remote ends the finding names, or else its own IPs other than an
  // API caller's (an ETD Bad IP finding carries the address in sourceProperties only).
  const flaggedIps =
    subject.remoteIps.length > 0 ? subject.remoteIps : subject.iocIps.filter((ip) => ip !== subject.callerIp);
  const indicators = [...subject.domains, ...flaggedIps];
  const intel = dropAbsent(indicators.map((v) => index.intelFor(v)));
  const malicious = intel.filter((i) => isBad(i.evidence) && !intelHas(i.evidence, "sinkhole"));
  // "The lookup" is the one of the flagged domain, or, for a flagged address, the lookups that
  // answered with it: the workload's other lookups are not the finding's.
  const dns = index
    .of("dns")
    .filter((d) =>
      subject.domains.length > 0
        ? subject.domains.some((dom) => d.evidence.query === dom || d.evidence.query.endsWith(`.${dom}`))
        : flaggedIps.length === 0 || d.evidence.answers.some((a) => flaggedIps.includes(a)),
    );
  const answers = [
    ...new Set(
      dns.flatMap((d) => d.evidence.answers.filter((a) => isIpv4(a) || /^[0-9a-f]*:[0-9a-f:]+$/i.test(a))),
    ),
  ];
  const sinkholeIntel = index.of("intel").filter((i) => intelHas(i.evidence, "sinkhole"));
  const lookupTimes = dns
    .flatMap((d) => [d.evidence.first, d.evidence.last])
    .map((t) => Date.parse(t ?? ""))
    .filter(Number.isFinite);
  const nearLookup = (at: string | undefined) =>
    lookupTimes.some((t) => Math.abs(Date.parse(at ?? "") - t) <= NEAR_MS);
  // What ran on the host in the minutes of a lookup, or any line naming the indicator: context for a reader.
  const aroundLookup = index
    .of("host_line")
    .filter(
      (l) =>
        indicators.some((v) => l.evidence.text.includes(v)) ||
        (nearLookup(l.evidence.first) && RESOLVER_WORK.test(l.evidence.text)),
    );
  // As a signal, a host line must be a security tool's, in the minutes of a lookup: naming the
  // indicator proves nothing (an attacker writes that line as easily as a scanner).
  const dnsTool = dns.filter((d) => SECURITY_TOOL.test(d.evidence.source ?? ""));
  const hostTool = aroundLookup.filter(
    (l) => nearLookup(l.evidence.first) && SECURITY_TOOL.test(l.evidence.text),
  );
  const toolSources = [...dnsTool, ...hostTool];
  const nullAnswered =
    dns.length > 0 &&
    dns.every(
      (d) =>
        d.evidence.answers.every((a) => NULL_ANSWER.test(a)) ||
        /NXDOMAIN/i.test(d.evidence.responseCode ?? ""),
    );
  // One name per independent source; corroboration.ts wants two before a dismissal stands.
  const signals = dropAbsent([
    dnsTool.length > 0 && "DNS client is a security tool",
    hostTool.length > 0 && "security tool ran on the host at the lookup",
    sinkholeIntel.length > 0 && "threat intel tags a sinkhole",
    nullAnswered && "DNS answered a sinkhole/null address",
  ]);
  const workloadDns = dns.filter((d) => !SECURITY_TOOL.test(d.evidence.source ?? ""));
  const contactIps = new Set([
    ...flaggedIps,
    ...answers.filter((a) => isPublicIp(a) && !NULL_ANSWER.test(a)),
  ]);
  const sinkholeIps = new Set(
    sinkholeIntel.filter((i) => i.evidence.type === "ip").map((i) => i.evidence.value),
  );
  const followOn = index
    .of("flow")
    .filter((f) => contactIps.has(f.evidence.remoteIp) && !sinkholeIps.has(f.evidence.remoteIp));
  // Intel quality: an address intel itself calls benign or shared infrastructure (a CDN edge)
  // is reached by everyone; a connection there is a sign only next to malicious intel in force.
  const sharedIps = new Set(
    index
      .of("intel")
      .filter(
        (i) =>
          i.evidence.type === "ip" &&
          !isBad(i.evidence) &&
          (i.evidence.verdict === "benign" ||
            i.evidence.tags.includes("benign") ||
            intelHas(i.evidence, "shared")),
      )
      .map((i) => i.evidence.value),
  );
  const sharedContact = followOn.filter((f) => sharedIps.has(f.evidence.remoteIp));
  const telling = followOn.filter((f) => !sharedIps.has(f.evidence.remoteIp));
  // Reached by name: a lookup answered with the address shortly before the first connection to
  // it, for a name intel does not flag. A hard-coded address has no such lookup.
  const byName = dns.filter(
    (d) =>
      !isBad(index.intelFor(d.evidence.query.replace(/\.$/, ""))?.evidence ?? UNLISTED) &&
      sharedContact.some(
        (f) =>
          d.evidence.answers.includes(f.evidence.remoteIp) &&
          Date.parse(d.evidence.first ?? "") <= Date.parse(f.evidence.first ?? "") + NEAR_MS &&
          Date.parse(f.evidence.first ?? "") - Date.parse(d.evidence.first ?? "") <= NEAR_MS,
      ),
  );

  const findings = dropAbsent([
    keyFinding(
      `Threat intelligence: ${intel.map((i) => `${i.evidence.value} ${i.evidence.verdict}${i.evidence.tags.length ? ` (${i.evidence.tags.slice(0, 3).join(", ")})` : ""}`).join("; ")}.`,
      intel,
    ),
    keyFinding(
      `The indicator was looked up by security tooling (${[...new Set(toolSources.map((t) => (t.evidence.kind === "dns" ? t.evidence.source : t.evidence.host) ?? "a scanner"))].join(", ")}).`,
      toolSources,
    ),
    keyFinding(
      `What ran on the host around the lookup: ${aroundLookup
        .slice(0, 2)
        .map((l) => JSON.stringify(l.evidence.text.slice(0, 160)))
        .join("; ")}.`,
      aroundLookup,
    ),
    keyFinding(
      `DNS lookups: ${sumCount(dns)} quer(ies)${answers.length ? `, answered ${answers.slice(0, 4).join(", ")}` : ""}${nullAnswered || sinkholeIntel.length > 0 ? " (sinkhole / null answer)" : ""}.`,
      dns,
    ),
    followOn.length > 0
      ? keyFinding(
          `The workload then connected to ${[...new Set(followOn.map((f) => f.evidence.remoteIp))].join(", ")} (${sumCount(followOn)} flow records).`,
          followOn,
        )
      : keyFinding(
          "No connection to the flagged or resolved IPs followed.",
          [],
          absence(index, /flow/i, "VPC flow logs"),
        ),
  ]);
  const base = {
    findings,
    iocs: [
      ...malicious.map((i) => ({
        type: i.evidence.type,
        value: i.evidence.value,
        context: `threat intel: ${i.evidence.verdict}`,
      })),
      ...[...new Set(followOn.map((f) => f.evidence.remoteIp))].map((ip) => ({
        type: "ip" as const,
        value: ip,
        context: "contacted after the lookup",
      })),
    ],
    mitre: [] as Decision["mitre"],
    openQuestions: [] as string[],
  };

  if (signals.length > 0 && followOn.length === 0) {
    return {
      ...base,
      iocs: [],
      verdict: "benign",
      signals,
      confidence: confidenceFrom(0.66, signals.length + (index.queried(/flow/i) ? 1 : 0)),
      severity: "LOW",
      rule: `Rule: the lookup came from security tooling or hit a sinkhole (${signals.join("; ")}), and no connection followed → benign.`,
      actions: [
        {
          action:
            "Allow-list the security tool's lookups for this detector, or mute findings from its host, after confirming its owner.",
          priority: "later",
        },
      ],
    };
  }
  const mitre = [
    {
      tactic: "Command and Control",
      techniqueId: subject.domains.length ? "T1071.004" : "T1071",
      techniqueName: subject.domains.length
        ? "Application Layer Protocol: DNS"
        : "Application Layer Protocol",
    },
  ];
  const actions: Decision["actions"] = [
    {
      action: `Block ${indicators.slice(0, 5).join(", ")} at Cloud DNS response policy and VPC firewall egress.`,
      priority: "immediate",
    },
    {
      action: `Identify the process on ${subject.instance ?? subject.resourceShort} that made the lookup and isolate the workload if it is unknown.`,
      priority: "immediate",
    },
    { action: "Hunt for the same indicators across other workloads' DNS and flow logs.", priority: "soon" },
  ];
  const sharedSignals = dropAbsent([
    sharedContact.length > 0 && "threat intel calls the contacted address benign or shared infrastructure",
    byName.length > 0 && "the workload reached it by name, a lookup intel does not flag",
  ]);
  if (
    telling.length === 0 &&
    sharedContact.length > 0 &&
    malicious.length === 0 &&
    sharedSignals.length >= 2
  ) {
    return {
      ...base,
      iocs: [],
      verdict: "false_positive",
      signals: sharedSignals,
      confidence: confidenceFrom(0.62, sharedSignals.length - 2),
      severity: "LOW",
      rule: `Rule: the only contact was with an address intel calls benign or shared infrastructure, reached through an unflagged name (${sharedSignals.join("; ")}), and no intel in force calls anything malicious → false_positive.`,
      findings: dropAbsent([
        keyFinding(
          `The workload resolved ${[...new Set(byName.map((d) => d.evidence.query.replace(/\.$/, "")))].join(", ")} to ${[...new Set(sharedContact.map((f) => f.evidence.remoteIp))].join(", ")} right before connecting to it.`,
          byName,
        ),
        ...findings,
      ]),
      actions: [
        {
          action:
            "Report the address to the detection's intel source as shared infrastructure; keep watching the workload's other peers.",
          priority: "later",
        },
      ],
    };
  }
  if (telling.length > 0 || (sharedContact.length > 0 && malicious.length > 0)) {
    return {
      ...base,
      mitre,
      actions,
      verdict: "true_positive",
      confidence: confidenceFrom(0.85, malicious.length + (workloadDns.length > 0 ? 1 : 0)),
      severity: "HIGH",
      rule: "Rule: the workload connected to the flagged or resolved IPs → true_positive.",
    };
  }
  if (malicious.length > 0 && sumCount(workloadDns) >= 3) {
    return {
      ...base,
      mitre,
      actions,
      verdict: "true_positive",
      confidence: 0.72,
      severity: "MEDIUM",
      rule: "Rule: intel marks the indicator malicious and a workload (not a security tool) resolved it repeatedly → true_positive.",
    };
  }
  const cleared = intel.length > 0 && intel.every((i) => i.evidence.verdict === "benign");
  if (cleared && dns.length === 0 && index.populated(/dns|flow/i)) {
    return {
      ...base,
      verdict: "false_positive",
      signals: dropAbsent([
        "threat intel clears every indicator",
        index.populated(/dns/i) && "populated DNS log holds no lookup",
        index.populated(/flow/i) && "populated flow log holds no contact",
      ]),
      confidence: 0.55,
      severity: "LOW",
      rule: "Rule: intel clears the indicators and populated DNS/flow logs show no contact → false_positive.",
      actions: [
        {
          action: "Report the indicator to the detection's intel source as a false match.",
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
    rule: "Rule: no sinkhole, no security-tool source and no follow-on connection either way → inconclusive.",
    actions: [
      {
        action: `Check ${subject.instance ?? subject.resourceShort} for the process that resolved ${indicators[0] ?? "the indicator"}.`,
        priority: "soon",
      },
    ],
    openQuestions: [
      `Which process on ${subject.instance ?? subject.resourceShort} looked up ${indicators.join(", ") || "the indicator"}?`,
      malicious.length
        ? "Did any connection follow outside the flow-log window?"
        : "What does threat intelligence say about the indicator?",
    ],
  };
}
