import type { Subject } from "../subject.js";
import {
  applicableSteps,
  commonConstraints,
  intelStep,
  type Playbook,
  paramIfPresent,
  windowParams,
} from "./types.js";

/** How miners usually arrive and stay: cron watchdogs and downloads; then the miner's own names. */
const HOST_TERMS = ["cron", "wget", "curl", "xmrig", "stratum"];

export function cryptominingPlaybook(subject: Subject): Playbook {
  const where = subject.instance ? `instance ${subject.instance}` : subject.resourceShort;
  const w = windowParams(subject.window);
  return {
    objective: `Did ${where} really run a cryptocurrency miner that reached an external mining pool around ${subject.eventTime}, and since when?`,
    successCriteria: [
      "Threat intelligence verdict for the finding's pool IPs, domains and hashes.",
      "VPC flow evidence of connections from the workload to the pool endpoints (count, bytes, ports, first/last seen), or its absence in a populated log.",
      "Host or audit evidence of how the miner started.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      intelStep(
        "intel-iocs",
        subject,
        "Pool IPs/domains or the binary hash are marked malicious or tagged as mining infrastructure; benign/unknown weakens the finding.",
      ),
      subject.remoteIps.length > 0 && {
        id: "flows-remote",
        intent: {
          kind: "flows",
          params: {
            ...paramIfPresent("ips", subject.remoteIps),
            ...paramIfPresent("instance", subject.instance),
            ...w,
          },
        },
        expected:
          "Sustained flows from the workload to the pool IPs (many connections or MBs, typical stratum ports) confirm mining; zero flows in a populated table refute it.",
      },
      subject.instance && {
        id: "egress-top",
        intent: {
          kind: "egress",
          params: { ...paramIfPresent("instance", subject.instance), ...w },
        },
        expected:
          "Other external destinations on pool-like ports reveal further pools; only expected services means no additional egress.",
      },
      subject.domains.length > 0 && {
        id: "dns-pool",
        intent: {
          kind: "dns",
          params: {
            ...paramIfPresent("domains", subject.domains),
            ...paramIfPresent("instance", subject.instance),
            ...w,
          },
        },
        expected:
          "Queries for the pool domain from the workload show it resolved the pool; none means the domain was not used from here.",
      },
      {
        id: "host-logs",
        intent: {
          kind: "host_logs",
          params: {
            ...paramIfPresent("instance", subject.instance),
            terms: [...subject.processNames.slice(0, 1), ...HOST_TERMS].slice(0, 4),
            ...w,
          },
        },
        expected:
          "Syslog lines showing the miner process, how it arrived (download) and how it persists (cron, systemd).",
      },
      subject.instance && {
        id: "ssh-entry",
        intent: { kind: "ssh_auth", params: { instance: [subject.instance], ...w } },
        expected:
          "Accepted SSH logins, especially after failures from the same source, show how the intruder got in; only known admins means another entry point.",
      },
      {
        id: "resource-changes",
        intent: {
          kind: "resource_activity",
          params: {
            ...paramIfPresent("resource", subject.auditResource),
            ...paramIfPresent("project", subject.project),
            ...w,
          },
        },
        expected:
          "Who created or modified the workload (metadata, startup script, SSH keys) shortly before the miner appeared.",
      },
    ]),
  };
}
