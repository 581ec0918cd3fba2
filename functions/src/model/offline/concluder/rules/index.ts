import type { FamilyId } from "../../families.js";
import type { FamilyRules } from "../decision.js";
import { badIndicatorRules } from "./bad-indicator.js";
import { bruteForceRules } from "./brute-force.js";
import { credentialAccessRules } from "./credential-access.js";
import { cryptominingRules } from "./cryptomining.js";
import { genericRules } from "./generic.js";
import { iamGrantRules } from "./iam-grant.js";
import { publicBucketRules } from "./public-bucket.js";

export const VERDICT_RULES: Record<FamilyId, FamilyRules> = {
  cryptomining: cryptominingRules,
  iam_grant: iamGrantRules,
  bad_indicator: badIndicatorRules,
  brute_force: bruteForceRules,
  credential_access: credentialAccessRules,
  public_bucket: publicBucketRules,
  // No family rules of their own yet: intel on the finding's indicators, else inconclusive.
  // Never a dismissal, so these families cannot clear a finding.
  exfiltration: genericRules,
  admin_change: genericRules,
  runtime: genericRules,
  posture: genericRules,
  generic: genericRules,
};
