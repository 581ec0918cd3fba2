import type { Subject } from "../subject.js";
import {
  applicableSteps,
  commonConstraints,
  intelStep,
  type Playbook,
  paramIfPresent,
  windowParams,
} from "./types.js";

export function credentialAccessPlaybook(subject: Subject): Playbook {
  const w = windowParams(subject.window);
  const who = subject.principal ?? "the principal";
  return {
    objective: `Was ${who} used by someone else${subject.callerIp ? ` from ${subject.callerIp}` : ""} (leaked or stolen credentials), and what did that caller do?`,
    successCriteria: [
      "Reputation of the caller IP (Tor exit, anonymizing proxy, hosting, or the organization's usual ranges).",
      "API activity from the caller IP and by the principal: methods, counts, data touched.",
      "Persistence attempts (new keys, IAM grants) by the principal.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      subject.callerIp &&
        intelStep(
          "intel-caller",
          subject,
          "A Tor/anonymizer/proxy or malicious tag means the credential was used by an outsider.",
          {
            ips: [subject.callerIp],
            domains: [],
            hashes: [],
          },
        ),
      subject.callerIp && {
        id: "caller-activity",
        intent: { kind: "caller_activity", params: { ips: [subject.callerIp], ...w } },
        expected:
          "API calls from the caller IP: which principals and methods; listing, reading or key creation show use of the access.",
      },
      subject.principal && {
        id: "principal-activity",
        intent: { kind: "principal_activity", params: { principal: [subject.principal], ...w } },
        expected:
          "The principal's calls from all IPs: its usual callers versus the anomalous one, and what the anomalous caller did.",
      },
      subject.principal && {
        id: "persistence-changes",
        intent: {
          kind: "iam_changes",
          params: { ...paramIfPresent("project", subject.project), member: [subject.principal], ...w },
        },
        expected:
          "Key creation or IAM grants by or for the principal would show persistence; none is reassuring.",
      },
      !subject.callerIp &&
        intelStep("intel-iocs", subject, "Any finding indicator with a malicious verdict."),
    ]),
  };
}
