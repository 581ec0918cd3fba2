import { isBad } from "../../evidence/intel.js";
import type { Subject } from "../../subject.js";
import { type Decision, dropAbsent, keyFinding } from "../decision.js";
import type { EvidenceIndex } from "../evidence-index.js";

/**
 * Generic verdict rules, for categories no family covers:
 * - true_positive when intel marks one of the finding's own indicators malicious (higher
 *   confidence when the logs also show the workload in contact with it);
 * - inconclusive otherwise: without a family's rules the offline model does not clear a finding.
 */
export function genericRules(subject: Subject, index: EvidenceIndex): Decision {
  const indicators = [...subject.publicIps, ...subject.domains, ...subject.hashes];
  const intel = dropAbsent(indicators.map((v) => index.intelFor(v)));
  const bad = intel.filter((i) => isBad(i.evidence));
  const contact = index.of("flow").filter((f) => bad.some((b) => b.evidence.value === f.evidence.remoteIp));
  const activity = [...index.of("audit"), ...index.of("object_read")];
  const findings = dropAbsent([
    keyFinding(
      `Threat intel: ${intel.map((i) => `${i.evidence.value} ${i.evidence.verdict}`).join("; ")}.`,
      intel,
    ),
    keyFinding(
      `The workload contacted ${[...new Set(contact.map((c) => c.evidence.remoteIp))].join(", ")}.`,
      contact,
    ),
    keyFinding(
      `Audit activity on the resource or by the principal: ${activity.length} distinct call pattern(s).`,
      activity.slice(0, 5),
    ),
  ]);
  const iocs = bad.map((b) => ({
    type: b.evidence.type,
    value: b.evidence.value,
    context: `threat intel: ${b.evidence.verdict}`,
  }));
  if (bad.length > 0) {
    return {
      verdict: "true_positive",
      confidence: contact.length > 0 ? 0.75 : 0.6,
      severity: subject.family === "generic" ? "MEDIUM" : "HIGH",
      rule: "Rule: threat intel marks an indicator of the finding malicious → true_positive.",
      findings,
      iocs,
      mitre: [],
      actions: [
        {
          action: `Block ${bad.map((b) => b.evidence.value).join(", ")} and review ${subject.resourceShort}.`,
          priority: "immediate",
        },
        {
          action:
            "Have an analyst confirm the category-specific impact; the offline model has no playbook for it.",
          priority: "soon",
        },
      ],
      openQuestions: [
        `What does "${subject.category}" mean for ${subject.resourceShort} beyond the flagged indicators?`,
      ],
    };
  }
  return {
    verdict: "inconclusive",
    confidence: 0.3,
    severity: "MEDIUM",
    rule: "Rule: no family playbook covers this category and no indicator is known bad → inconclusive; an analyst should decide.",
    findings,
    iocs: intel.map((i) => ({
      type: i.evidence.type,
      value: i.evidence.value,
      context: `named by the finding; intel ${i.evidence.verdict}`,
    })),
    mitre: [],
    actions: [
      {
        action: `Review the finding "${subject.category}" on ${subject.resourceShort} by hand.`,
        priority: "soon",
      },
    ],
    openQuestions: [`Is the activity behind "${subject.category}" expected for ${subject.resourceShort}?`],
  };
}
