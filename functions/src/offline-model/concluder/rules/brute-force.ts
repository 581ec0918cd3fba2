import { failedAttempts } from "../../evidence/counting.js";
import { intelHas } from "../../evidence/intel.js";
import type { Subject } from "../../subject.js";
import { absence, confidenceFrom, type Decision, dropAbsent, keyFinding, spanText } from "../decision.js";
import type { EvidenceIndex } from "../evidence-index.js";

const POST_LOGIN =
  /sudo|useradd|adduser|usermod|authorized_keys|crontab|passwd|wget |curl |chmod \+x|nohup|\/tmp\//i;

/**
 * Brute-force verdict rules:
 * - true_positive when a login was accepted from a source that also failed (or from the
 *   finding's source IPs): the guessing worked;
 * - benign when failures were logged and none succeeded from those sources (internet noise
 *   that bounced off; more confidence when intel tags the source as a scanner);
 * - false_positive when a populated auth log shows no failed logins from the source at all;
 * - inconclusive when the auth log could not be read.
 */
export function bruteForceRules(subject: Subject, index: EvidenceIndex): Decision {
  const auth = index.of("auth");
  const failed = auth.filter(
    (a) =>
      a.evidence.outcome === "failed" &&
      (subject.remoteIps.length === 0 ||
        subject.remoteIps.includes(a.evidence.sourceIp ?? "") ||
        !a.evidence.sourceIp),
  );
  const failingIps = new Set([
    ...subject.remoteIps,
    ...failed.map((f) => f.evidence.sourceIp).filter((ip): ip is string => Boolean(ip)),
  ]);
  const accepted = auth.filter(
    (a) =>
      a.evidence.outcome === "accepted" &&
      a.evidence.sourceIp !== undefined &&
      failingIps.has(a.evidence.sourceIp),
  );
  const otherAccepted = auth.filter((a) => a.evidence.outcome === "accepted" && !accepted.includes(a));
  const postLogin = index.of("host_line").filter((l) => POST_LOGIN.test(l.evidence.text));
  const intel = dropAbsent(subject.remoteIps.map((ip) => index.intelFor(ip)));
  const scanners = intel.filter(
    (i) => intelHas(i.evidence, "scanner") || i.evidence.tags.some((t) => /brute|ssh|scan|botnet/.test(t)),
  );
  const failedCount = Math.max(
    0,
    ...[...new Set(failed.map((f) => f.stepId))].map((step) =>
      failedAttempts(failed.filter((f) => f.stepId === step).map((f) => f.evidence)),
    ),
  );
  const sources = [...failingIps].join(", ") || "the source";

  const findings = dropAbsent([
    keyFinding(`${failedCount} failed login(s) from ${sources}${spanText(failed)}.`, failed),
    accepted.length > 0
      ? keyFinding(
          `Login ACCEPTED from ${[...new Set(accepted.map((a) => `${a.evidence.user ?? "?"} @ ${a.evidence.sourceIp}`))].join(", ")}${spanText(accepted)}.`,
          accepted,
        )
      : keyFinding(
          `No accepted login from ${sources}.`,
          [],
          absence(index, /syslog|auth|ssh/i, "sshd accepted-login search"),
        ),
    keyFinding(
      `Post-login activity on the host: ${postLogin.length} line(s) (sudo, new users or keys, downloads).`,
      accepted.length > 0 ? postLogin : [],
    ),
    keyFinding(
      `Threat intel on the source: ${intel.map((i) => `${i.evidence.value} ${i.evidence.verdict}${i.evidence.tags.length ? ` (${i.evidence.tags.slice(0, 3).join(", ")})` : ""}`).join("; ")}.`,
      intel,
    ),
    keyFinding(
      `Other accepted logins in the window (different sources): ${otherAccepted.length}.`,
      otherAccepted,
    ),
  ]);
  const iocs = [
    ...[...failingIps].map((ip) => ({
      type: "ip" as const,
      value: ip,
      context: accepted.some((a) => a.evidence.sourceIp === ip)
        ? "brute-forced a login successfully"
        : "failed login attempts",
    })),
  ];
  const target = subject.instance ?? subject.resourceShort;

  if (accepted.length > 0) {
    return {
      verdict: "true_positive",
      confidence: confidenceFrom(0.88, (failedCount > 0 ? 1 : 0) + (postLogin.length > 0 ? 1 : 0)),
      severity: "CRITICAL",
      rule: "Rule: a login was accepted from a source that was guessing passwords → true_positive (compromise).",
      findings,
      iocs,
      mitre: [
        { tactic: "Credential Access", techniqueId: "T1110", techniqueName: "Brute Force" },
        { tactic: "Initial Access", techniqueId: "T1078", techniqueName: "Valid Accounts" },
        { tactic: "Lateral Movement", techniqueId: "T1021.004", techniqueName: "Remote Services: SSH" },
      ],
      actions: [
        {
          action: `Isolate ${target}, kill the attacker's sessions and snapshot the disk.`,
          priority: "immediate",
        },
        {
          action: `Disable or reset the account(s) ${[...new Set(accepted.map((a) => a.evidence.user ?? "?"))].join(", ")} and remove unknown authorized_keys.`,
          priority: "immediate",
        },
        {
          action: `Block ${sources} and close SSH to the internet (IAP TCP forwarding or OS Login with 2FA).`,
          priority: "immediate",
        },
        {
          action: "Review what the session did (sudo, cron, new binaries) and rebuild the host.",
          priority: "soon",
        },
      ],
      openQuestions: [],
    };
  }
  // The auth log proves it would record a success when it records other accepted logins.
  const logLive = otherAccepted.length > 0 && "the auth log records other sources' accepted logins";
  const knownScanner = scanners.length > 0 && "threat intel knows the source as a scanner";
  if (failedCount > 0) {
    return {
      verdict: "benign",
      signals: dropAbsent(["failed logins from the source, none accepted", logLive, knownScanner]),
      confidence: confidenceFrom(
        0.75,
        (scanners.length > 0 ? 1 : 0) + (index.queried(/syslog|auth|ssh/i) ? 1 : 0),
      ),
      severity: "LOW",
      rule: "Rule: the login attempts happened and all failed; no login was accepted from the source → benign (noise that did not get in).",
      findings,
      iocs,
      mitre: [],
      actions: [
        {
          action: `Restrict SSH on ${target} to IAP or known ranges and enforce key-only authentication.`,
          priority: "soon",
        },
        { action: `Optionally block ${sources} at the firewall.`, priority: "later" },
      ],
      openQuestions: [],
    };
  }
  if (index.populated(/syslog|auth|ssh/i)) {
    return {
      verdict: "false_positive",
      signals: dropAbsent([
        "populated auth log holds no failed login from the source",
        logLive,
        intel.length > 0 &&
          intel.every((i) => i.evidence.verdict === "benign") &&
          "threat intel clears the source",
      ]),
      confidence: 0.6,
      severity: "LOW",
      rule: "Rule: the host's auth log is populated but holds no failed logins from the source → false_positive.",
      findings,
      iocs: [],
      mitre: [],
      actions: [
        {
          action:
            "Check the detector's source data for this host (e.g. a health check or a misattributed flow).",
          priority: "later",
        },
      ],
      openQuestions: [],
    };
  }
  return {
    verdict: "inconclusive",
    confidence: 0.3,
    severity: "MEDIUM",
    rule: "Rule: the host's authentication log could not be read, so success or failure is unknown → inconclusive.",
    findings,
    iocs,
    mitre: [],
    actions: [
      {
        action: `Read /var/log/auth.log (or the Windows Security log) on ${target} directly.`,
        priority: "soon",
      },
    ],
    openQuestions: [
      `Did any login from ${sources} succeed on ${target}?`,
      "Is the logging agent shipping auth logs from this host?",
    ],
  };
}
