import type { Subject } from "../subject.js";
import { commonConstraints, intelStep, opt, type Playbook, present, windowParams } from "./types.js";

/** How miners usually arrive and stay: cron watchdogs and downloads; then the miner's own names. */
const HOST_TERMS = ["cron", "wget", "curl", "xmrig", "stratum"];

export function cryptominingPlaybook(s: Subject): Playbook {
  const where = s.instance ? `instance ${s.instance}` : s.resourceShort;
  const w = windowParams(s.window);
  return {
    objective: `Did ${where} really run a cryptocurrency miner that reached an external mining pool around ${s.eventTime}, and since when?`,
    successCriteria: [
      "Threat intelligence verdict for the finding's pool IPs, domains and hashes.",
      "VPC flow evidence of connections from the workload to the pool endpoints (count, bytes, ports, first/last seen), or its absence in a populated log.",
      "Host or audit evidence of how the miner started.",
    ],
    constraints: commonConstraints(s),
    steps: present([
      intelStep(
        "intel-iocs",
        s,
        "Pool IPs/domains or the binary hash are marked malicious or tagged as mining infrastructure; benign/unknown weakens the finding.",
      ),
      s.remoteIps.length > 0 && {
        id: "flows-remote",
        intent: {
          kind: "flows",
          params: { ...opt("ips", s.remoteIps), ...opt("instance", s.instance), ...w },
        },
        expected:
          "Sustained flows from the workload to the pool IPs (many connections or MBs, typical stratum ports) confirm mining; zero flows in a populated table refute it.",
      },
      (s.instance || s.remoteIps.length === 0) && {
        id: "egress-top",
        intent: { kind: "egress", params: { ...opt("instance", s.instance ?? s.resourceShort), ...w } },
        expected:
          "Other external destinations on pool-like ports reveal further pools; only expected services means no additional egress.",
      },
      s.domains.length > 0 && {
        id: "dns-pool",
        intent: {
          kind: "dns",
          params: { ...opt("domains", s.domains), ...opt("instance", s.instance), ...w },
        },
        expected:
          "Queries for the pool domain from the workload show it resolved the pool; none means the domain was not used from here.",
      },
      {
        id: "host-logs",
        intent: {
          kind: "host_logs",
          params: {
            ...opt("instance", s.instance ?? s.resourceShort),
            terms: [...s.processNames.slice(0, 1), ...HOST_TERMS].slice(0, 4),
            ...w,
          },
        },
        expected:
          "Syslog lines showing the miner process, how it arrived (download) and how it persists (cron, systemd).",
      },
      s.instance && {
        id: "ssh-entry",
        intent: { kind: "ssh_auth", params: { instance: [s.instance], ...w } },
        expected:
          "Accepted SSH logins, especially after failures from the same source, show how the intruder got in; only known admins means another entry point.",
      },
      {
        id: "resource-changes",
        intent: {
          kind: "resource_activity",
          params: { ...opt("resource", s.instance ?? s.resourceShort), ...opt("project", s.project), ...w },
        },
        expected:
          "Who created or modified the workload (metadata, startup script, SSH keys) shortly before the miner appeared.",
      },
    ]),
  };
}
