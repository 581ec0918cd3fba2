import type { Subject } from "../subject.js";
import { commonConstraints, intelStep, opt, type Playbook, present, windowParams } from "./types.js";

/** For categories no family knows: reputation of what the finding names, then who touched the resource. */
export function genericPlaybook(s: Subject): Playbook {
  const w = windowParams(s.window);
  return {
    objective: `What happened on ${s.resourceShort} around ${s.eventTime} that raised "${s.category}", and is it malicious?`,
    successCriteria: [
      "Threat intelligence verdicts for every indicator the finding names.",
      "Audit-log activity on the resource and by the acting principal in the window.",
    ],
    constraints: commonConstraints(s),
    steps: present([
      intelStep(
        "intel-iocs",
        s,
        "A malicious verdict on any indicator supports the finding; all benign or unknown does not settle it.",
      ),
      {
        id: "resource-activity",
        intent: {
          kind: "resource_activity",
          params: {
            resource: [s.instance ?? s.bucket ?? s.resourceShort],
            ...opt("project", s.project),
            ...w,
          },
        },
        expected: "Who changed the resource around the event and from where.",
      },
      s.principal && {
        id: "principal-activity",
        intent: { kind: "principal_activity", params: { principal: [s.principal], ...w } },
        expected: "The principal's calls in the window: ordinary work or a burst of unusual methods.",
      },
      s.remoteIps.length > 0 && {
        id: "flows-remote",
        intent: { kind: "flows", params: { ips: s.remoteIps, ...opt("instance", s.instance), ...w } },
        expected: "Connections between the workload and the finding's IPs confirm contact.",
      },
    ]),
  };
}
