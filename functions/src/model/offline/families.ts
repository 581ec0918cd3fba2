import type { Finding } from "../../domain/finding.js";

/** The finding families the playbooks know; anything else gets the generic playbook. */
export type FamilyId =
  | "cryptomining"
  | "iam_grant"
  | "bad_indicator"
  | "brute_force"
  | "credential_access"
  | "public_bucket"
  | "generic";

interface FamilyRule {
  id: Exclude<FamilyId, "generic">;
  /** Matched against "category findingClass" of the finding. */
  category: RegExp;
  /** ATT&CK techniques that point at the family when the category is unfamiliar. */
  techniques: RegExp;
}

// Order matters: "Malware: Cryptomining Bad IP" is mining first, a bad IP second.
const RULES: readonly FamilyRule[] = [
  {
    id: "cryptomining",
    category: /crypto\s*(currency)?\s*min|coin\s*min|mining\s*pool|\bminer\b|xmrig/i,
    techniques: /^T1496\b/,
  },
  {
    id: "public_bucket",
    category:
      /public[\s_-]*bucket|open\s+storage\s+bucket|bucket[\s_-]*(acl|iam)|public[\s_-]*(acl|object)|storage.*public/i,
    techniques: /^T1530\b/,
  },
  {
    id: "brute_force",
    category: /brute[\s_-]*force|password\s*spray|credential\s*stuffing/i,
    techniques: /^T1110\b/,
  },
  {
    id: "iam_grant",
    category:
      /anomalous\s+(iam\s+)?grant|privilege\s+escalation|persistence:\s*iam|iam\s+anomalous|sensitive\s+role|impersonation/i,
    techniques: /^T1098\b|^T1078\.001/,
  },
  {
    id: "credential_access",
    category:
      /leaked\s+credential|credential\s+access|anomalous\s+(access|service\s*account|sa\b)|anonymi[sz]ing|\btor\b|proxy|new\s+geography|new\s+user\s*agent|account\s+has\s+leaked/i,
    techniques: /^T1078\b|^T1552\b|^T1090\b/,
  },
  {
    id: "bad_indicator",
    category: /bad\s*(domain|ip)|malicious\s*(domain|ip|url)|malware:/i,
    techniques: /^T1071\b|^T1568\b/,
  },
];

/**
 * Picks the playbook family from the category and finding class (regex, never a scenario
 * name), then from the ATT&CK techniques, then falls back to generic.
 */
export function familyOf(
  finding: Pick<Finding, "category" | "findingClass" | "mitre" | "resource">,
): FamilyId {
  const label = `${finding.category} ${finding.findingClass}`;
  const byCategory = RULES.find((rule) => rule.category.test(label));
  if (byCategory) return byCategory.id;
  if (
    /misconfiguration/i.test(finding.findingClass) &&
    /bucket|storage/i.test(`${finding.resource.type ?? ""} ${finding.resource.name}`)
  ) {
    return "public_bucket";
  }
  const byTechnique = RULES.find((rule) => finding.mitre.techniques.some((t) => rule.techniques.test(t)));
  return byTechnique?.id ?? "generic";
}

export const FAMILY_LABELS: Record<FamilyId, string> = {
  cryptomining: "cryptomining",
  iam_grant: "anomalous IAM grant / privilege escalation",
  bad_indicator: "bad domain / bad IP contact",
  brute_force: "SSH/RDP brute force",
  credential_access: "leaked or anomalous credential use",
  public_bucket: "public storage bucket",
  generic: "unclassified finding",
};
