import { extractIocs, type Ioc, mergeIocs } from "../../domain/ioc.js";
import { failedAttempts } from "../evidence/counting.js";
import { isIpv4 } from "../net.js";
import type { Subject } from "../subject.js";
import { type Decision, dropAbsent, keyFinding } from "./decision.js";
import type { EvidenceIndex } from "./evidence-index.js";

const CRON = /\bCRON\b|crontab|\/etc\/cron/i;
const SUSPICIOUS_COMMAND =
  /\/tmp\/|\/dev\/shm|\/var\/tmp|\/\.[a-z0-9]|curl |wget |\| *(ba)?sh|base64 -d|nohup/i;
const DOWNLOAD = /\b(wget|curl)\b[^\n]*?(https?:\/\/\S+|\b\d{1,3}(?:\.\d{1,3}){3}\b)/i;

/** The URL and its host (IP or domain); a file name in the URL's path is not a domain. */
function downloadIndicators(text: string): Ioc[] {
  const found = extractIocs(text);
  const urls = found.filter((i) => i.type === "url");
  const hosts = urls
    .map((u) => /^https?:\/\/([^/:?#]+)/i.exec(u.value)?.[1]?.toLowerCase())
    .filter((h): h is string => Boolean(h))
    .map((h): Ioc => ({ type: isIpv4(h) ? "ip" : "domain", value: h }));
  const others = found.filter(
    (i) =>
      (i.type === "ip" || i.type === "domain") &&
      !urls.some((u) => u.value.toLowerCase().includes(i.value.toLowerCase())),
  );
  return mergeIocs(urls, hosts, others).map((i) => ({ ...i, context: "payload download on the host" }));
}

/**
 * The attack chain around the family's own verdict, found the same way for every family:
 * an SSH login that followed password guessing (initial access), cron entries that run
 * something from a temp or hidden path (persistence), and downloads (tool transfer). They
 * add key findings and IOCs; ATT&CK techniques only when the verdict is true_positive.
 */
export function enrichChain(decision: Decision, subject: Subject, index: EvidenceIndex): Decision {
  if (subject.family === "brute_force") return decision;
  const auth = index.of("auth");
  const accepted = auth.filter(
    (a) =>
      a.evidence.outcome === "accepted" &&
      a.evidence.sourceIp &&
      failedAttempts(auth.filter((f) => f.evidence.sourceIp === a.evidence.sourceIp).map((f) => f.evidence)) >
        0,
  );
  const cron = index
    .of("host_line")
    .filter((l) => CRON.test(l.evidence.text) && SUSPICIOUS_COMMAND.test(l.evidence.text));
  const downloads = index.of("host_line").filter((l) => DOWNLOAD.test(l.evidence.text));
  const entryIps = [...new Set(accepted.map((a) => a.evidence.sourceIp ?? ""))].filter(Boolean);
  const failures = (ip: string) =>
    failedAttempts(auth.filter((f) => f.evidence.sourceIp === ip).map((f) => f.evidence));
  const findings = dropAbsent([
    keyFinding(
      `Initial access: SSH login accepted for ${[...new Set(accepted.map((a) => a.evidence.user ?? "?"))].join(", ")} from ${entryIps.map((ip) => `${ip} after ${failures(ip)} failed attempt(s)`).join(", ")}.`,
      accepted,
    ),
    keyFinding(
      `Persistence: cron runs a command from a temporary or hidden path (${cron.length} line(s)).`,
      cron,
    ),
    keyFinding(`Tool transfer: the host downloaded a payload (${downloads.length} line(s)).`, downloads),
  ]);
  if (findings.length === 0) return decision;
  const downloadIocs = downloads.flatMap((d) => downloadIndicators(d.evidence.text));
  const tp = decision.verdict === "true_positive";
  const mitre = [
    ...decision.mitre,
    ...(tp && accepted.length
      ? [
          {
            tactic: "Credential Access",
            techniqueId: "T1110.001",
            techniqueName: "Brute Force: Password Guessing",
          },
        ]
      : []),
    ...(tp && cron.length
      ? [{ tactic: "Persistence", techniqueId: "T1053.003", techniqueName: "Scheduled Task/Job: Cron" }]
      : []),
    ...(tp && downloads.length
      ? [{ tactic: "Command and Control", techniqueId: "T1105", techniqueName: "Ingress Tool Transfer" }]
      : []),
  ];
  return {
    ...decision,
    findings: [...decision.findings, ...findings],
    mitre: mitre.filter((m, i) => mitre.findIndex((x) => x.techniqueId === m.techniqueId) === i),
    iocs: mergeIocs(
      decision.iocs,
      entryIps.map((ip) => ({
        type: "ip" as const,
        value: ip,
        context: "SSH password guessing that led to a login",
      })),
      downloadIocs,
    ),
    actions:
      tp && accepted.length
        ? [
            ...decision.actions,
            {
              action: `Reset the credentials of ${[...new Set(accepted.map((a) => a.evidence.user ?? "?"))].join(", ")} and close password SSH from the internet.`,
              priority: "immediate" as const,
            },
          ]
        : decision.actions,
  };
}
