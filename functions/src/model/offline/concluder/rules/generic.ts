import { isBad } from "../../evidence/intel.js";
import type { Subject } from "../../subject.js";
import { type Decision, finding, present } from "../decision.js";
import type { EvidenceIndex } from "../evidence-index.js";

/**
 * Generic verdict rules, for categories no family covers:
 * - true_positive when intel marks one of the finding's own indicators malicious (higher
 *   confidence when the logs also show the workload in contact with it);
 * - inconclusive otherwise: without a family's rules the offline model does not clear a finding.
 */
export function genericRules(s: Subject, index: EvidenceIndex): Decision {
  const indicators = [...s.publicIps, ...s.domains, ...s.hashes];
  const intel = present(indicators.map((v) => index.intelFor(v)));
  const bad = intel.filter((i) => isBad(i.e));
  const contact = index.of("flow").filter((f) => bad.some((b) => b.e.value === f.e.remoteIp));
  const activity = [...index.of("audit"), ...index.of("object_read")];
  const findings = present([
    finding(`Threat intel: ${intel.map((i) => `${i.e.value} ${i.e.verdict}`).join("; ")}.`, intel),
    finding(`The workload contacted ${[...new Set(contact.map((c) => c.e.remoteIp))].join(", ")}.`, contact),
    finding(
      `Audit activity on the resource or by the principal: ${activity.length} distinct call pattern(s).`,
      activity.slice(0, 5),
    ),
  ]);
  const iocs = bad.map((b) => ({
    type: b.e.type,
    value: b.e.value,
    context: `threat intel: ${b.e.verdict}`,
  }));
  if (bad.length > 0) {
    return {
      verdict: "true_positive",
      confidence: contact.length > 0 ? 0.75 : 0.6,
      severity: s.family === "generic" ? "MEDIUM" : "HIGH",
      rule: "Rule: threat intel marks an indicator of the finding malicious → true_positive.",
      findings,
      iocs,
      mitre: [],
      actions: [
        {
          action: `Block ${bad.map((b) => b.e.value).join(", ")} and review ${s.resourceShort}.`,
          priority: "immediate",
        },
        {
          action:
            "Have an analyst confirm the category-specific impact; the offline model has no playbook for it.",
          priority: "soon",
        },
      ],
      openQuestions: [`What does "${s.category}" mean for ${s.resourceShort} beyond the flagged indicators?`],
    };
  }
  return {
    verdict: "inconclusive",
    confidence: 0.3,
    severity: "MEDIUM",
    rule: "Rule: no family playbook covers this category and no indicator is known bad → inconclusive; an analyst should decide.",
    findings,
    iocs: intel.map((i) => ({
      type: i.e.type,
      value: i.e.value,
      context: `named by the finding; intel ${i.e.verdict}`,
    })),
    mitre: [],
    actions: [
      { action: `Review the finding "${s.category}" on ${s.resourceShort} by hand.`, priority: "soon" },
    ],
    openQuestions: [`Is the activity behind "${s.category}" expected for ${s.resourceShort}?`],
  };
}
