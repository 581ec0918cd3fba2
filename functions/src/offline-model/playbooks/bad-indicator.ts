import type { Subject } from "../subject.js";
import {
  applicableSteps,
  commonConstraints,
  intelStep,
  type Playbook,
  paramIfPresent,
  windowParams,
} from "./types.js";

export function badIndicatorPlaybook(subject: Subject): Playbook {
  const w = windowParams(subject.window);
  const indicators = [...subject.domains, ...subject.remoteIps].join(", ") || "the flagged indicator";
  const where = subject.instance ? `instance ${subject.instance}` : subject.resourceShort;
  return {
    objective: `Did ${where} really talk to ${indicators}, and was it malware, a security tool or a sinkholed lookup?`,
    successCriteria: [
      "Threat intelligence verdict and tags for the domains and IPs (malicious, sinkhole, scanner).",
      "Who resolved the domain and what the answer was.",
      "Whether any connection followed to the resolved or flagged IPs.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      intelStep(
        "intel-iocs",
        subject,
        "Malicious with malware/C2 tags confirms a bad indicator; a sinkhole tag or benign verdict points to a harmless lookup.",
      ),
      subject.domains.length > 0 && {
        id: "dns-lookups",
        intent: {
          kind: "dns",
          params: {
            ...paramIfPresent("domains", subject.domains),
            ...paramIfPresent("instance", subject.instance),
            ...w,
          },
        },
        expected:
          "Query entries with source and answer: a sinkhole or NXDOMAIN answer and a scanner source point to benign; repeated lookups from a workload to a live answer point to malware.",
      },
      {
        id: "flows-followup",
        intent: {
          kind: "flows",
          params: {
            ...paramIfPresent("ips", subject.remoteIps),
            // The resolved addresses are joined in the query itself, so this step waits for no other.
            ...paramIfPresent("domains", subject.domains),
            ...(subject.domains.length === 0 ? paramIfPresent("instance", subject.instance) : {}),
            ...w,
          },
        },
        expected:
          "Connections to the flagged or resolved IPs after the lookup mean real contact; none means the lookup went nowhere.",
      },
      {
        id: "host-logs",
        intent: {
          kind: "host_logs",
          params: {
            ...paramIfPresent("instance", subject.instance),
            terms: [...subject.domains, ...subject.remoteIps, ...subject.processNames].slice(0, 4),
            // Lines rarely name the domain; what ran in the minutes of the first lookup does, read
            // in one query that finds the lookup itself.
            ...(subject.domains.length > 0 ? { near: ["dns"], domains: subject.domains } : {}),
            ...w,
          },
        },
        expected:
          "Which process or tool on the host made the lookup (a scanner, a package manager, an unknown binary).",
      },
    ]),
  };
}
