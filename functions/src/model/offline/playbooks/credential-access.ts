import type { Subject } from "../subject.js";
import { commonConstraints, intelStep, opt, type Playbook, present, windowParams } from "./types.js";

export function credentialAccessPlaybook(s: Subject): Playbook {
  const w = windowParams(s.window);
  const who = s.principal ?? "the principal";
  return {
    objective: `Was ${who} used by someone else${s.callerIp ? ` from ${s.callerIp}` : ""} (leaked or stolen credentials), and what did that caller do?`,
    successCriteria: [
      "Reputation of the caller IP (Tor exit, anonymizing proxy, hosting, or the organization's usual ranges).",
      "API activity from the caller IP and by the principal: methods, counts, data touched.",
      "Persistence attempts (new keys, IAM grants) by the principal.",
    ],
    constraints: commonConstraints(s),
    steps: present([
      s.callerIp &&
        intelStep(
          "intel-caller",
          s,
          "A Tor/anonymizer/proxy or malicious tag means the credential was used by an outsider.",
          {
            ips: [s.callerIp],
            domains: [],
            hashes: [],
          },
        ),
      s.callerIp && {
        id: "caller-activity",
        intent: { kind: "caller_activity", params: { ips: [s.callerIp], ...w } },
        expected:
          "API calls from the caller IP: which principals and methods; listing, reading or key creation show use of the access.",
      },
      s.principal && {
        id: "principal-activity",
        intent: { kind: "principal_activity", params: { principal: [s.principal], ...w } },
        expected:
          "The principal's calls from all IPs: its usual callers versus the anomalous one, and what the anomalous caller did.",
      },
      s.principal && {
        id: "persistence-changes",
        intent: {
          kind: "iam_changes",
          params: { ...opt("project", s.project), member: [s.principal], ...w },
        },
        expected:
          "Key creation or IAM grants by or for the principal would show persistence; none is reassuring.",
      },
      !s.callerIp && intelStep("intel-iocs", s, "Any finding indicator with a malicious verdict."),
    ]),
  };
}
