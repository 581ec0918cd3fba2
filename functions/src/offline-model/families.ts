import { catalogEntryFor, type PlaybookId } from "../domain/category-catalog.js";
import type { Finding } from "../domain/finding/finding.js";
import { isCustomSource } from "../domain/finding/finding-source.js";

/** The finding families the playbooks know: the catalog's playbooks, and generic for the rest. */
export type FamilyId = PlaybookId | "generic";

interface FallbackRule {
  id: PlaybookId;
  /** Words about what happened, matched against the category only; never its ATT&CK tactic prefix. */
  subject: RegExp;
  /** ATT&CK techniques that point at the family when the words say nothing. */
  techniques: RegExp;
}

/** Removes an ATT&CK tactic prefix ("Credential Access: ", "Persistence: "): a tactic names a goal, not what was seen. */
export function withoutTactic(category: string): string {
  return category.replace(/^[A-Za-z0-9 &'-]{3,40}:\s*/, "");
}

// For categories the catalog does not list yet (new detectors, custom modules). Order matters:
// "Cryptomining Bad IP" is mining first, a bad IP second.
const FALLBACK: readonly FallbackRule[] = [
  {
    id: "cryptomining",
    subject: /crypto\s*(currency)?\s*min|coin\s*min|mining\s*pool|\bminer\b|xmrig/i,
    techniques: /^T1496\b/,
  },
  {
    id: "brute_force",
    subject: /brute[\s_-]*force|password\s*spray|credential\s*stuffing/i,
    techniques: /^T1110\b/,
  },
  {
    id: "iam_grant",
    subject: /anomalous\s+(iam\s+)?grant|iam\s+anomalous|sensitive\s+role\s+grant|role\s+grant/i,
    techniques: /^T1098(\.003)?$/,
  },
  {
    id: "credential_access",
    subject: /leaked\s+credential|anonymi[sz]ing|\btor\b|new\s+geography|new\s+user\s*agent|impersonation/i,
    techniques: /^T1078\b|^T1552\b|^T1090\b/,
  },
  {
    id: "bad_indicator",
    subject: /bad\s*(domain|ip)|malicious\s*(domain|ip|url)/i,
    techniques: /^T1071\b|^T1568\b/,
  },
  { id: "exfiltration", subject: /exfiltrat|data\s+extraction/i, techniques: /^T1567\b|^T1537\b/ },
];

/**
 * Picks the playbook family: the catalog entry of the category when there is one (built from
 * Google's detector documentation), otherwise words about what happened in the category with
 * its tactic prefix removed, then the ATT&CK techniques, then posture for uncatalogued
 * misconfigurations and vulnerabilities, then generic.
 */
export function familyOf(
  finding: Pick<Finding, "category" | "findingClass" | "mitre" | "resource"> &
    Partial<Pick<Finding, "parentDisplayName" | "sourceProperties">>,
): FamilyId {
  const entry = catalogEntryFor(finding.category);
  if (entry) return entry.playbook;
  // A custom source's category says what its author chose, not what a detector saw (domain/finding/finding-source.ts).
  if (isCustomSource(finding)) return "generic";
  const subject = withoutTactic(finding.category);
  const bySubject = FALLBACK.find((rule) => rule.subject.test(subject));
  if (bySubject) return bySubject.id;
  const byTechnique = FALLBACK.find((rule) => finding.mitre.techniques.some((t) => rule.techniques.test(t)));
  if (byTechnique) return byTechnique.id;
  if (/misconfiguration|vulnerability|posture/i.test(finding.findingClass)) return "posture";
  return "generic";
}

/** How summaries and plans name the family; each label reads as a kind of finding, without the word "finding". */
export const FAMILY_LABELS: Record<FamilyId, string> = {
  cryptomining: "cryptomining",
  iam_grant: "anomalous IAM grant / privilege escalation",
  bad_indicator: "bad domain / bad IP contact",
  brute_force: "SSH/RDP brute force",
  credential_access: "leaked or anomalous credential use",
  public_bucket: "public storage bucket",
  exfiltration: "data exfiltration",
  admin_change: "sensitive administrative change",
  runtime: "workload runtime threat",
  posture: "misconfiguration or vulnerability",
  generic: "uncatalogued",
};

/** "this bad domain / bad IP contact finding (Malware: Bad Domain)": the family and the category, never "finding finding". */
export function findingPhrase(family: FamilyId, category: string): string {
  const name = category.replace(/\s+/g, " ").trim().slice(0, 120);
  return `this ${FAMILY_LABELS[family]} finding${name ? ` (${name})` : ""}`;
}

/** "the cryptomining playbook"; for generic, says why it was chosen. */
export function playbookPhrase(family: FamilyId): string {
  return family === "generic"
    ? "the generic playbook (the category is not in the catalog)"
    : `the ${FAMILY_LABELS[family]} playbook`;
}
