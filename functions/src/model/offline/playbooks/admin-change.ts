import type { Subject } from "../subject.js";
import { commonConstraints, intelStep, opt, type Playbook, present, windowParams } from "./types.js";

/** A sensitive change (keys, scripts, perimeters, RBAC, groups): who made it, from where, and what followed. */
export function adminChangePlaybook(s: Subject): Playbook {
  const w = windowParams(s.window);
  return {
    objective: `Who changed ${s.resourceShort} ("${s.category}") around ${s.eventTime}, from where, and was the change used?`,
    successCriteria: [
      "The change itself in the admin activity log: principal, caller IP, user agent.",
      "Whether the principal normally makes such changes, and from that address.",
      "Reputation of the caller IP.",
    ],
    constraints: commonConstraints(s),
    steps: present([
      {
        id: "resource-activity",
        intent: {
          kind: "resource_activity",
          params: { resource: [s.resourceShort], ...opt("project", s.project), ...w },
        },
        expected: "The change on the resource and what was done to it afterwards.",
      },
      s.principal && {
        id: "principal-activity",
        intent: { kind: "principal_activity", params: { principal: [s.principal], ...w } },
        expected: "The principal's other calls: routine administration, or a burst of unusual methods.",
      },
      s.callerIp &&
        intelStep(
          "intel-caller",
          s,
          "A malicious or anonymizer verdict on the caller IP means the change came from an outsider.",
          {
            ips: [s.callerIp],
            domains: [],
            hashes: [],
          },
        ),
      s.callerIp && {
        id: "caller-activity",
        intent: { kind: "caller_activity", params: { ips: [s.callerIp], ...w } },
        expected: "Other principals or resources touched from the caller IP.",
      },
    ]),
  };
}
