import type { Subject } from "../subject.js";
import { applicableSteps, commonConstraints, type Playbook, paramIfPresent, windowParams } from "./types.js";

/**
 * A misconfiguration or vulnerability is a state, not an event: the logs can say who set it and
 * whether anyone used the opening, not whether it still holds.
 */
export function posturePlaybook(subject: Subject): Playbook {
  const w = windowParams(subject.window);
  return {
    objective: `Who configured ${subject.resourceShort} the way "${subject.category}" describes, and has anyone used the opening?`,
    successCriteria: [
      "The configuration change in the admin activity log: principal, time, caller IP.",
      "Access to the resource since the change.",
    ],
    constraints: [
      ...commonConstraints(subject),
      "A posture finding describes a state; the logs cannot confirm it still holds, only who set it and what followed.",
    ],
    steps: applicableSteps([
      {
        id: "resource-activity",
        intent: {
          kind: "resource_activity",
          params: {
            resource: [subject.bucket ?? subject.instance ?? subject.resourceShort],
            ...paramIfPresent("project", subject.project),
            ...w,
          },
        },
        expected: "The change that produced the configuration, and who touched the resource since.",
      },
      subject.principal && {
        id: "principal-activity",
        intent: { kind: "principal_activity", params: { principal: [subject.principal], ...w } },
        expected: "What the principal who made the change did around it.",
      },
    ]),
  };
}
