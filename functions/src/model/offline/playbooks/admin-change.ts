import type { Subject } from "../subject.js";
import {
  applicableSteps,
  commonConstraints,
  intelStep,
  type Playbook,
  paramIfPresent,
  windowParams,
} from "./types.js";

/** A sensitive change (keys, scripts, perimeters, RBAC, groups): who made it, from where, and what followed. */
export function adminChangePlaybook(subject: Subject): Playbook {
  const w = windowParams(subject.window);
  return {
    objective: `Who changed ${subject.resourceShort} ("${subject.category}") around ${subject.eventTime}, from where, and was the change used?`,
    successCriteria: [
      "The change itself in the admin activity log: principal, caller IP, user agent.",
      "Whether the principal normally makes such changes, and from that address.",
      "Reputation of the caller IP.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      {
        id: "resource-activity",
        intent: {
          kind: "resource_activity",
          params: { resource: [subject.resourceShort], ...paramIfPresent("project", subject.project), ...w },
        },
        expected: "The change on the resource and what was done to it afterwards.",
      },
      subject.principal && {
        id: "principal-activity",
        intent: { kind: "principal_activity", params: { principal: [subject.principal], ...w } },
        expected: "The principal's other calls: routine administration, or a burst of unusual methods.",
      },
      subject.callerIp &&
        intelStep(
          "intel-caller",
          subject,
          "A malicious or anonymizer verdict on the caller IP means the change came from an outsider.",
          {
            ips: [subject.callerIp],
            domains: [],
            hashes: [],
          },
        ),
      subject.callerIp && {
        id: "caller-activity",
        intent: { kind: "caller_activity", params: { ips: [subject.callerIp], ...w } },
        expected: "Other principals or resources touched from the caller IP.",
      },
    ]),
  };
}
