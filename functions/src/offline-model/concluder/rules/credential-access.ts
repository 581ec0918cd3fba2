import { intelHas, isBad } from "../../evidence/intel.js";
import type { ObjectReadEvidence } from "../../evidence/types.js";
import type { Subject } from "../../subject.js";
import { confidenceFrom, type Decision, dropAbsent, keyFinding, sumCount } from "../decision.js";
import type { EvidenceIndex, Located } from "../evidence-index.js";

const SENSITIVE_METHOD =
  /SetIamPolicy|CreateServiceAccountKey|CreateKey|secretmanager|AccessSecretVersion|storage\.objects\.(get|list)|instances\.insert|compute\.instances\.setMetadata|getIamPolicy|list/i;
const PERSISTENCE_METHOD =
  /CreateServiceAccountKey|CreateKey|SetIamPolicy|CreateServiceAccount\b|instances\.setMetadata/i;

/**
 * Leaked / anomalous credential verdict rules:
 * - true_positive when intel marks the caller IP as Tor, an anonymizer or malicious AND the
 *   principal made API calls from it; also on persistence (new keys, IAM changes) from the
 *   anomalous caller, or on the anonymizer verdict alone at lower confidence (SCC saw the access);
 * - benign when intel knows the caller IP as benign and the calls from it are the principal's
 *   ordinary, read-only work;
 * - inconclusive otherwise.
 */
export function credentialAccessRules(subject: Subject, index: EvidenceIndex): Decision {
  const callerIps = [
    ...new Set(
      [subject.callerIp, ...(subject.callerIp ? [] : subject.publicIps)].filter((ip): ip is string =>
        Boolean(ip),
      ),
    ),
  ];
  const intel = dropAbsent(callerIps.map((ip) => index.intelFor(ip)));
  const anonymizer = intel.filter((i) => intelHas(i.evidence, "anonymizer") || isBad(i.evidence));
  const fromCaller = [...index.of("audit"), ...index.of("object_read")].filter(
    (a) => a.evidence.callerIp !== undefined && callerIps.includes(a.evidence.callerIp),
  );
  const byPrincipal = subject.principal
    ? fromCaller.filter(
        (a) =>
          !a.evidence.principal || a.evidence.principal.toLowerCase() === subject.principal?.toLowerCase(),
      )
    : fromCaller;
  const sensitive = byPrincipal.filter((a) => SENSITIVE_METHOD.test(a.evidence.method));
  const persistence = index
    .of("audit")
    .filter(
      (a) =>
        PERSISTENCE_METHOD.test(a.evidence.method) &&
        (!subject.principal || a.evidence.principal === subject.principal) &&
        !a.evidence.failed &&
        (a.evidence.callerIp === undefined || callerIps.includes(a.evidence.callerIp)),
    );
  const denied = index
    .of("audit")
    .filter(
      (a) =>
        a.evidence.failed &&
        (a.evidence.callerIp === undefined || callerIps.includes(a.evidence.callerIp)) &&
        (!subject.principal || a.evidence.principal === subject.principal),
    );
  const reads = byPrincipal.filter(
    (a): a is Located<ObjectReadEvidence> => a.evidence.kind === "object_read",
  );
  const buckets = [...new Set(reads.map((r) => r.evidence.bucket).filter((b): b is string => Boolean(b)))];
  const usual = [...index.of("audit"), ...index.of("object_read")].filter(
    (a) =>
      subject.principal &&
      a.evidence.principal === subject.principal &&
      a.evidence.callerIp &&
      !callerIps.includes(a.evidence.callerIp),
  );
  const who = subject.principal ?? "the principal";

  const findings = dropAbsent([
    keyFinding(
      `Threat intel on caller IP ${callerIps.join(", ")}: ${intel.map((i) => `${i.evidence.verdict}${i.evidence.tags.length ? ` (${i.evidence.tags.slice(0, 3).join(", ")})` : ""}`).join("; ")}.`,
      intel,
    ),
    keyFinding(
      `${who} made ${sumCount(byPrincipal)} API call(s) from ${callerIps.join(", ")}: ${[...new Set(byPrincipal.map((a) => a.evidence.method))].slice(0, 5).join(", ")}.`,
      byPrincipal,
    ),
    keyFinding(
      `Persistence from the anomalous caller: ${[...new Set(persistence.map((p) => p.evidence.method))].join(", ")}.`,
      persistence,
    ),
    keyFinding(
      `Data read from the anomalous caller: ${sumCount(reads)} object read(s) in ${buckets.map((b) => `gs://${b}`).join(", ") || "storage"}.`,
      reads,
    ),
    keyFinding(
      `Denied from the anomalous caller: ${[...new Set(denied.map((d) => d.evidence.method))].join(", ")} (attempted escalation).`,
      denied,
    ),
    keyFinding(
      `${who}'s usual callers in the window: ${[...new Set(usual.map((u) => u.evidence.callerIp))].slice(0, 4).join(", ")}.`,
      usual,
    ),
  ]);
  const iocs = [
    ...anonymizer.map((i) => ({
      type: "ip" as const,
      value: i.evidence.value,
      context: `caller IP: ${i.evidence.verdict} (${i.evidence.tags.slice(0, 3).join(", ")})`,
    })),
    ...(subject.principal && (anonymizer.length > 0 || persistence.length > 0)
      ? [
          {
            type: "principal" as const,
            value: subject.principal,
            context: "credential used by an outside caller",
          },
        ]
      : []),
  ];
  const tpBase = {
    findings,
    iocs,
    mitre: [
      { tactic: "Initial Access", techniqueId: "T1078.004", techniqueName: "Valid Accounts: Cloud Accounts" },
      ...(anonymizer.some((i) => intelHas(i.evidence, "anonymizer"))
        ? [
            {
              tactic: "Command and Control",
              techniqueId: "T1090.003",
              techniqueName: "Proxy: Multi-hop Proxy",
            },
          ]
        : []),
      ...(reads.length > 0
        ? [{ tactic: "Collection", techniqueId: "T1530", techniqueName: "Data from Cloud Storage" }]
        : []),
      ...(persistence.length > 0
        ? [
            {
              tactic: "Persistence",
              techniqueId: "T1098.001",
              techniqueName: "Account Manipulation: Additional Cloud Credentials",
            },
          ]
        : []),
    ],
    actions: [
      {
        action: `Disable ${subject.principal ?? "the credential"}${subject.principal?.includes("gserviceaccount") ? " and delete its user-managed keys" : ", reset it and revoke its sessions"}.`,
        priority: "immediate" as const,
        respondWith: "disable_service_account_key" as const,
      },
      {
        action: `Block ${callerIps.join(", ")} and review everything the caller touched (data reads, new keys, IAM changes).`,
        priority: "immediate" as const,
      },
      {
        action:
          "Find where the key leaked (repositories, CI logs, images) and move the workload to keyless auth (workload identity).",
        priority: "soon" as const,
      },
    ],
  };

  if (anonymizer.length > 0 && byPrincipal.length > 0) {
    return {
      ...tpBase,
      verdict: "true_positive",
      confidence: confidenceFrom(0.88, (sensitive.length > 0 ? 1 : 0) + (persistence.length > 0 ? 1 : 0)),
      severity: persistence.length > 0 ? "CRITICAL" : "HIGH",
      rule: "Rule: the credential was used for API calls from an IP that intel marks as Tor/anonymizer/malicious → true_positive.",
      openQuestions: [],
    };
  }
  if (persistence.length > 0 && byPrincipal.length > 0) {
    return {
      ...tpBase,
      verdict: "true_positive",
      confidence: 0.8,
      severity: "CRITICAL",
      rule: "Rule: the anomalous caller created keys or changed IAM with the credential → true_positive.",
      openQuestions: [],
    };
  }
  if (anonymizer.length > 0) {
    return {
      ...tpBase,
      verdict: "true_positive",
      confidence: 0.66,
      severity: "HIGH",
      rule: "Rule: intel marks the caller IP as an anonymizer; the logs did not show the calls themselves → true_positive at lower confidence.",
      openQuestions: ["Which API calls did the caller make? The audit logs in the window showed none."],
    };
  }
  const benignIntel = intel.length > 0 && intel.every((i) => i.evidence.verdict === "benign");
  if (benignIntel && byPrincipal.length > 0 && sensitive.length === 0 && persistence.length === 0) {
    return {
      findings,
      iocs: [],
      verdict: "benign",
      // Intel (the provider's) and the audit log (Google's) are independent sources.
      signals: [
        "threat intel knows the caller IP as benign",
        "the audit log shows only ordinary read-only calls",
      ],
      confidence: 0.6,
      severity: "LOW",
      rule: "Rule: intel knows the caller IP as benign and the calls from it are ordinary read-only work → benign.",
      mitre: [],
      actions: [
        {
          action: `Confirm with the owner of ${who} that ${callerIps.join(", ")} is theirs (new office, VPN, CI runner).`,
          priority: "later",
        },
      ],
      openQuestions: [],
    };
  }
  return {
    findings,
    iocs,
    verdict: "inconclusive",
    confidence: 0.35,
    severity: "MEDIUM",
    rule: "Rule: neither intel nor the audit logs tie the caller to misuse or clear it → inconclusive.",
    mitre: [],
    actions: [
      {
        action: `Ask the owner of ${who} whether ${callerIps.join(", ") || "the caller"} is theirs; rotate the credential if not.`,
        priority: "soon",
      },
    ],
    openQuestions: [
      `Is ${callerIps.join(", ") || "the caller IP"} an address the owner of ${who} uses?`,
      "Was the key exposed anywhere public?",
    ],
  };
}
