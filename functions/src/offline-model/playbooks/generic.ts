import type { Subject } from "../subject.js";
import { historyStep, intelIocsStep, iocTrafficStep, lbStep, resourceStep } from "./evidence-steps.js";
import { applicableSteps, commonConstraints, type Playbook } from "./types.js";

/** For categories no family knows: the checks that apply to any finding, sized by what it names. */
export function genericPlaybook(subject: Subject): Playbook {
  return {
    objective: `What happened on ${subject.auditResource} around ${subject.eventTime} that raised "${subject.category}", and is it malicious?`,
    successCriteria: [
      "Threat intelligence verdicts for every indicator the finding names.",
      "Traffic to the finding's own addresses; audit-log activity on the resource and the principal's history.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      intelIocsStep(subject),
      iocTrafficStep(subject),
      lbStep(subject),
      resourceStep(subject, "Who changed the resource around the event and from where."),
      historyStep(subject),
    ]),
  };
}
