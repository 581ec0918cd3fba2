import type { Subject } from "../subject.js";
import {
  applicableSteps,
  commonConstraints,
  intelStep,
  type Playbook,
  paramIfPresent,
  windowParams,
} from "./types.js";

/** BigQuery / Cloud SQL data leaving the organization: who moved which data where, and from which address. */
export function exfiltrationPlaybook(subject: Subject): Playbook {
  const w = windowParams(subject.window);
  return {
    objective: `Did data from ${subject.resourceShort} leave the organization around ${subject.eventTime}, who moved it, and from where?`,
    successCriteria: [
      "The export, copy or restore call on the resource: principal, caller IP, destination.",
      "The principal's other activity in the window: one job or a pattern of bulk reads.",
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
        expected: "The calls that read, exported or copied the resource, with their principal and caller IP.",
      },
      subject.principal && {
        id: "principal-activity",
        intent: { kind: "principal_activity", params: { principal: [subject.principal], ...w } },
        expected:
          "The principal's calls in the window: a routine job, or bulk reads and exports it does not usually run.",
      },
      subject.callerIp &&
        intelStep(
          "intel-caller",
          subject,
          "A malicious or anonymizer verdict on the caller IP means an outsider moved the data.",
          {
            ips: [subject.callerIp],
            domains: [],
            hashes: [],
          },
        ),
      subject.callerIp && {
        id: "caller-activity",
        intent: { kind: "caller_activity", params: { ips: [subject.callerIp], ...w } },
        expected: "Everything else the caller IP did: other principals or data touched from it.",
      },
    ]),
  };
}
