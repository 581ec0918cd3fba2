import type { FamilyId } from "../../families.js";
import type { FamilyRules } from "../decision.js";
import { badIndicatorRules } from "./bad-indicator.js";
import { bruteForceRules } from "./brute-force.js";
import { credentialAccessRules } from "./credential-access.js";
import { crossCategoryRules } from "./cross-category.js";
import { cryptominingRules } from "./cryptomining.js";
import { iamGrantRules } from "./iam-grant.js";
import { publicBucketRules } from "./public-bucket.js";

export const VERDICT_RULES: Record<FamilyId, FamilyRules> = {
  cryptomining: cryptominingRules,
  iam_grant: iamGrantRules,
  bad_indicator: badIndicatorRules,
  brute_force: bruteForceRules,
  credential_access: credentialAccessRules,
  public_bucket: publicBucketRules,
  // No rules of their own: the evidence analysts read across categories (cross-category.ts).
  exfiltration: crossCategoryRules,
  admin_change: crossCategoryRules,
  runtime: crossCategoryRules,
  posture: crossCategoryRules,
  generic: crossCategoryRules,
};
