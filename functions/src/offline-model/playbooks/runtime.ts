import type { Subject } from "../subject.js";
import { intelIocsStep, iocTrafficStep, lbStep, resourceStep, workloadIocIps } from "./evidence-steps.js";
import { applicableSteps, commonConstraints, type Playbook, windowParams } from "./types.js";

const HOST_TERMS = ["wget", "curl", "chmod", "/tmp/"];

/**
 * Code running on a VM or container that should not: sized to the evidence the finding makes
 * checkable. Its own remote addresses are traced in the flows (sessions, bytes, duration);
 * a web-borne attempt is read at the load balancer; host logs only for a VM the finding
 * names (a GKE node's syslog does not show a container's processes); the VM's other traffic
 * and who changed it only when there is no address to trace.
 */
export function runtimePlaybook(subject: Subject): Playbook {
  const w = windowParams(subject.window);
  const vm = subject.ids.resourceKind === "cluster" ? undefined : subject.instance;
  const traced = workloadIocIps(subject).length > 0;
  return {
    objective: `What ran on ${vm ?? subject.auditResource} around ${subject.eventTime} that raised "${subject.category}", and did it reach the addresses the finding names?`,
    successCriteria: [
      "Threat intelligence verdicts for the hashes, IPs and domains the finding names.",
      "Traffic between the workload and the finding's own addresses: sessions, bytes, duration.",
      "Host log lines of downloads, permission changes or the process itself, for a VM.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      intelIocsStep(subject),
      iocTrafficStep(subject),
      lbStep(subject),
      vm && {
        id: "host-logs",
        intent: {
          kind: "host_logs",
          params: {
            instance: [vm],
            terms: [...subject.processNames.slice(0, 1), ...HOST_TERMS].slice(0, 4),
            ...w,
          },
        },
        expected:
          "Lines that show the process, its download or its persistence; none leaves the host logs silent on it.",
      },
      vm &&
        !traced && {
          id: "egress-top",
          intent: { kind: "egress", params: { instance: [vm], ...w } },
          expected:
            "The workload's top external destinations: a shell's or miner's peer stands out from its usual services.",
        },
      !traced &&
        resourceStep(
          subject,
          "Changes to the workload (metadata, SSH keys, exec into a pod) that explain how the code arrived.",
        ),
    ]),
  };
}
