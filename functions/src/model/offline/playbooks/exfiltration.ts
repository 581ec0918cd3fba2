import type { Subject } from "../subject.js";
import { commonConstraints, intelStep, opt, type Playbook, present, windowParams } from "./types.js";

/** BigQuery / Cloud SQL data leaving the organization: who moved which data where, and from which address. */
export function exfiltrationPlaybook(s: Subject): Playbook {
  const w = windowParams(s.window);
  return {
    objective: `Did data from ${s.resourceShort} leave the organization around ${s.eventTime}, who moved it, and from where?`,
    successCriteria: [
      "The export, copy or restore call on the resource: principal, caller IP, destination.",
      "The principal's other activity in the window: one job or a pattern of bulk reads.",
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
        expected: "The calls that read, exported or copied the resource, with their principal and caller IP.",
      },
      s.principal && {
        id: "principal-activity",
        intent: { kind: "principal_activity", params: { principal: [s.principal], ...w } },
        expected:
          "The principal's calls in the window: a routine job, or bulk reads and exports it does not usually run.",
      },
      s.callerIp &&
        intelStep(
          "intel-caller",
          s,
          "A malicious or anonymizer verdict on the caller IP means an outsider moved the data.",
          {
            ips: [s.callerIp],
            domains: [],
            hashes: [],
          },
        ),
      s.callerIp && {
        id: "caller-activity",
        intent: { kind: "caller_activity", params: { ips: [s.callerIp], ...w } },
        expected: "Everything else the caller IP did: other principals or data touched from it.",
      },
    ]),
  };
}
