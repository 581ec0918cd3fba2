import type { Subject } from "../subject.js";
import {
  applicableSteps,
  commonConstraints,
  intelStep,
  type Playbook,
  paramIfPresent,
  windowParams,
} from "./types.js";

const HOST_TERMS = ["wget", "curl", "chmod", "/tmp/"];

/** Code running on a VM or container that should not: its indicators, its traffic, and how it got there. */
export function runtimePlaybook(subject: Subject): Playbook {
  const w = windowParams(subject.window);
  const host = subject.instance ?? subject.resourceShort;
  return {
    objective: `What ran on ${host} around ${subject.eventTime} that raised "${subject.category}", what did it contact, and how did it get there?`,
    successCriteria: [
      "Threat intelligence verdicts for the hashes, IPs and domains the finding names.",
      "The workload's outbound connections in the window.",
      "Host log lines of downloads, permission changes or the process itself.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      intelStep(
        "intel-iocs",
        subject,
        "A malicious verdict on the binary, URL or remote address confirms the detection.",
      ),
      subject.remoteIps.length > 0 && {
        id: "flows-remote",
        intent: {
          kind: "flows",
          params: { ips: subject.remoteIps, ...paramIfPresent("instance", subject.instance), ...w },
        },
        expected: "Connections between the workload and the finding's remote addresses confirm contact.",
      },
      {
        id: "egress-top",
        intent: { kind: "egress", params: { instance: [host], ...w } },
        expected:
          "The workload's top external destinations: a shell's or miner's peer stands out from its usual services.",
      },
      {
        id: "host-logs",
        intent: {
          kind: "host_logs",
          params: {
            instance: [host],
            terms: [...subject.processNames.slice(0, 1), ...HOST_TERMS].slice(0, 4),
            ...w,
          },
        },
        expected:
          "Lines that show the process, its download or its persistence; none leaves the host logs silent on it.",
      },
      {
        id: "resource-activity",
        intent: {
          kind: "resource_activity",
          params: { resource: [host], ...paramIfPresent("project", subject.project), ...w },
        },
        expected:
          "Changes to the workload (metadata, SSH keys, exec into a pod) that explain how the code arrived.",
      },
    ]),
  };
}
