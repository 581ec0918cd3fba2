import type { Subject } from "../subject.js";
import { commonConstraints, opt, type Playbook, present, windowParams } from "./types.js";

/**
 * A misconfiguration or vulnerability is a state, not an event: the logs can say who set it and
 * whether anyone used the opening, not whether it still holds.
 */
export function posturePlaybook(s: Subject): Playbook {
  const w = windowParams(s.window);
  return {
    objective: `Who configured ${s.resourceShort} the way "${s.category}" describes, and has anyone used the opening?`,
    successCriteria: [
      "The configuration change in the admin activity log: principal, time, caller IP.",
      "Access to the resource since the change.",
    ],
    constraints: [
      ...commonConstraints(s),
      "A posture finding describes a state; the logs cannot confirm it still holds, only who set it and what followed.",
    ],
    steps: present([
      {
        id: "resource-activity",
        intent: {
          kind: "resource_activity",
          params: {
            resource: [s.bucket ?? s.instance ?? s.resourceShort],
            ...opt("project", s.project),
            ...w,
          },
        },
        expected: "The change that produced the configuration, and who touched the resource since.",
      },
      s.principal && {
        id: "principal-activity",
        intent: { kind: "principal_activity", params: { principal: [s.principal], ...w } },
        expected: "What the principal who made the change did around it.",
      },
    ]),
  };
}
