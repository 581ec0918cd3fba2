import { withoutTactic } from "../families.js";
import type { Subject } from "../subject.js";
import {
  callerIntelStep,
  deniedAllowedStep,
  followUpStep,
  historyStep,
  resourceStep,
} from "./evidence-steps.js";
import { applicableSteps, commonConstraints, type Playbook } from "./types.js";

/** Categories about a control being weakened: calls it used to stop may now get through. */
const WEAKENED_CONTROL = /perimeter|service control|polic|firewall|permission|access level|authenticat/i;

/**
 * A sensitive change (keys, scripts, perimeters, RBAC, groups): the change, the principal's own
 * history (a first-seen address, or the same change on many earlier days), the caller's
 * reputation, what an added member did next, and who got through a weakened control.
 */
export function adminChangePlaybook(subject: Subject): Playbook {
  return {
    objective: `Who changed ${subject.auditResource} ("${subject.category}") around ${subject.eventTime}, from where, is it their habit, and was the change used?`,
    successCriteria: [
      "The change itself in the admin activity log: principal, caller IP, user agent.",
      "The principal's history: the same address, device and method before, or a first-seen one.",
      "What followed: a new member's actions, callers the change let through.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      resourceStep(subject, "The change on the resource and what was done to it afterwards."),
      historyStep(subject),
      followUpStep(subject),
      WEAKENED_CONTROL.test(withoutTactic(subject.category)) && deniedAllowedStep(subject),
      callerIntelStep(subject),
    ]),
  };
}
