import { identifiersOf } from "../../domain/log-identifiers.js";
import type { Subject } from "../subject.js";
import { callerIntelStep, historyStep } from "./evidence-steps.js";
import { applicableSteps, commonConstraints, type Playbook, paramIfPresent, windowParams } from "./types.js";

/**
 * BigQuery / Cloud SQL data leaving the organization: who moved it (the principal's calls in
 * the window sit in its history, so one look-back shows both the export and whether its
 * address and client are the principal's own), the caller's reputation, and the source's
 * admin activity (a restore or an ACL change).
 */
export function exfiltrationPlaybook(subject: Subject): Playbook {
  const sources = [
    ...identifiersOf(subject.ids, "table"),
    ...identifiersOf(subject.ids, "sql_instance"),
    ...identifiersOf(subject.ids, "bucket"),
  ];
  return {
    objective: `Did data from ${subject.auditResource} leave the organization around ${subject.eventTime}, who moved it, and from an address and client that are theirs?`,
    successCriteria: [
      "The export, copy or restore call: principal, caller IP, user agent, destination.",
      "The principal's history: the same address and client before, or first seen now.",
      "Reputation of the caller IP.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      historyStep(subject),
      callerIntelStep(subject),
      {
        id: "resource-activity",
        intent: {
          kind: "resource_activity",
          params: {
            resource: [sources[0] ?? subject.auditResource],
            ...paramIfPresent("project", subject.project),
            ...windowParams(subject.window),
          },
        },
        expected: "Admin changes on the data's source (restores, ACL or sharing changes) around the export.",
      },
    ]),
  };
}
