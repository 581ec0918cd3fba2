import type { Subject } from "../subject.js";
import {
  applicableSteps,
  commonConstraints,
  intelStep,
  type Playbook,
  paramIfPresent,
  windowParams,
} from "./types.js";

/** For categories no family knows: reputation of what the finding names, then who touched the resource. */
export function genericPlaybook(subject: Subject): Playbook {
  const w = windowParams(subject.window);
  return {
    objective: `What happened on ${subject.resourceShort} around ${subject.eventTime} that raised "${subject.category}", and is it malicious?`,
    successCriteria: [
      "Threat intelligence verdicts for every indicator the finding names.",
      "Audit-log activity on the resource and by the acting principal in the window.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      intelStep(
        "intel-iocs",
        subject,
        "A malicious verdict on any indicator supports the finding; all benign or unknown does not settle it.",
      ),
      {
        id: "resource-activity",
        intent: {
          kind: "resource_activity",
          params: {
            resource: [subject.instance ?? subject.bucket ?? subject.resourceShort],
            ...paramIfPresent("project", subject.project),
            ...w,
          },
        },
        expected: "Who changed the resource around the event and from where.",
      },
      subject.principal && {
        id: "principal-activity",
        intent: { kind: "principal_activity", params: { principal: [subject.principal], ...w } },
        expected: "The principal's calls in the window: ordinary work or a burst of unusual methods.",
      },
      subject.remoteIps.length > 0 && {
        id: "flows-remote",
        intent: {
          kind: "flows",
          params: { ips: subject.remoteIps, ...paramIfPresent("instance", subject.instance), ...w },
        },
        expected: "Connections between the workload and the finding's IPs confirm contact.",
      },
    ]),
  };
}
