import type { Subject } from "../subject.js";
import { historyStep, resourceStep } from "./evidence-steps.js";
import { applicableSteps, commonConstraints, type Playbook } from "./types.js";

/**
 * A misconfiguration or vulnerability is a state, not an event: the logs can say who set it and
 * whether that is the principal's habit, not whether it still holds.
 */
export function posturePlaybook(subject: Subject): Playbook {
  return {
    objective: `Who configured ${subject.auditResource} the way "${subject.category}" describes, and has anyone used the opening?`,
    successCriteria: [
      "The configuration change in the admin activity log: principal, time, caller IP.",
      "Access to the resource since the change.",
    ],
    constraints: [
      ...commonConstraints(subject),
      "A posture finding describes a state; the logs cannot confirm it still holds, only who set it and what followed.",
    ],
    steps: applicableSteps([
      resourceStep(
        subject,
        "The change that produced the configuration, and who touched the resource since.",
      ),
      historyStep(subject),
    ]),
  };
}
