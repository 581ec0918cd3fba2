import type { Subject } from "../subject.js";
import { commonConstraints, intelStep, opt, type Playbook, present, windowParams } from "./types.js";

export function badIndicatorPlaybook(s: Subject): Playbook {
  const w = windowParams(s.window);
  const indicators = [...s.domains, ...s.remoteIps].join(", ") || "the flagged indicator";
  const where = s.instance ? `instance ${s.instance}` : s.resourceShort;
  return {
    objective: `Did ${where} really talk to ${indicators}, and was it malware, a security tool or a sinkholed lookup?`,
    successCriteria: [
      "Threat intelligence verdict and tags for the domains and IPs (malicious, sinkhole, scanner).",
      "Who resolved the domain and what the answer was.",
      "Whether any connection followed to the resolved or flagged IPs.",
    ],
    constraints: commonConstraints(s),
    steps: present([
      intelStep(
        "intel-iocs",
        s,
        "Malicious with malware/C2 tags confirms a bad indicator; a sinkhole tag or benign verdict points to a harmless lookup.",
      ),
      s.domains.length > 0 && {
        id: "dns-lookups",
        intent: {
          kind: "dns",
          params: { ...opt("domains", s.domains), ...opt("instance", s.instance), ...w },
        },
        expected:
          "Query entries with source and answer: a sinkhole or NXDOMAIN answer and a scanner source point to benign; repeated lookups from a workload to a live answer point to malware.",
      },
      {
        id: "flows-followup",
        intent: {
          kind: "flows",
          params: { ...opt("ips", s.remoteIps), ...opt("instance", s.instance), ...w },
        },
        expected:
          "Connections to the flagged or resolved IPs after the lookup mean real contact; none means the lookup went nowhere.",
        ...(s.domains.length > 0 ? { dependsOn: ["dns-lookups"] } : {}),
      },
      {
        id: "host-logs",
        intent: {
          kind: "host_logs",
          params: {
            ...opt("instance", s.instance ?? s.resourceShort),
            terms: [...s.domains, ...s.remoteIps, ...s.processNames].slice(0, 4),
            // Lines rarely name the domain; what ran in the minutes of the first lookup does.
            ...(s.domains.length > 0 ? { near: ["prior"] } : {}),
            ...w,
          },
        },
        expected:
          "Which process or tool on the host made the lookup (a scanner, a package manager, an unknown binary).",
        ...(s.domains.length > 0 ? { dependsOn: ["dns-lookups"] } : {}),
      },
    ]),
  };
}
