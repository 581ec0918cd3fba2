import type { Subject } from "../subject.js";
import {
  applicableSteps,
  commonConstraints,
  intelStep,
  type Playbook,
  paramIfPresent,
  windowParams,
} from "./types.js";

export function iamGrantPlaybook(subject: Subject): Playbook {
  const members = subject.granted.map((g) => g.member);
  const w = windowParams(subject.window);
  const who = members.length > 0 ? members.join(", ") : "the new member";
  return {
    objective: `Was the IAM grant to ${who}${subject.principal ? ` by ${subject.principal}` : ""} an authorized change or an attacker establishing persistence?`,
    successCriteria: [
      "The exact policy change: granting principal, role, member, time, caller IP and user agent.",
      "Whether the member belongs to the organization's domain and whether the granter is approved automation or cites a change ticket.",
      "What the granted member did with the access afterwards.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      {
        id: "iam-changes",
        intent: {
          kind: "iam_changes",
          params: {
            ...paramIfPresent("project", subject.project),
            ...paramIfPresent("member", members),
            ...w,
          },
        },
        expected:
          "A SetIamPolicy entry adding the member; the granter, role and request metadata tell approved automation from a person or an unknown caller.",
      },
      subject.principal && {
        id: "granter-activity",
        intent: { kind: "principal_activity", params: { principal: [subject.principal], ...w } },
        expected:
          "The granter's other calls around the grant: normal admin work, or key creation, further grants and logging changes.",
      },
      members.length > 0 && {
        id: "grantee-activity",
        intent: { kind: "principal_activity", params: { principal: members, ...w } },
        expected:
          "Any API use by the new member after the grant shows the access was exercised; none means it was not (yet).",
      },
      subject.callerIp &&
        intelStep(
          "intel-caller",
          subject,
          "The granter's caller IP is a known anonymizer or malicious host, or unremarkable.",
          {
            ips: [subject.callerIp],
            domains: [],
            hashes: [],
          },
        ),
    ]),
  };
}
