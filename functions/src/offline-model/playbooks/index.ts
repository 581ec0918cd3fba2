import type { FamilyId } from "../families.js";
import { adminChangePlaybook } from "./admin-change.js";
import { badIndicatorPlaybook } from "./bad-indicator.js";
import { bruteForcePlaybook } from "./brute-force.js";
import { credentialAccessPlaybook } from "./credential-access.js";
import { cryptominingPlaybook } from "./cryptomining.js";
import { exfiltrationPlaybook } from "./exfiltration.js";
import { genericPlaybook } from "./generic.js";
import { iamGrantPlaybook } from "./iam-grant.js";
import { posturePlaybook } from "./posture.js";
import { publicBucketPlaybook } from "./public-bucket.js";
import { runtimePlaybook } from "./runtime.js";
import type { PlaybookFor } from "./types.js";

export const PLAYBOOKS: Record<FamilyId, PlaybookFor> = {
  cryptomining: cryptominingPlaybook,
  iam_grant: iamGrantPlaybook,
  bad_indicator: badIndicatorPlaybook,
  brute_force: bruteForcePlaybook,
  credential_access: credentialAccessPlaybook,
  public_bucket: publicBucketPlaybook,
  exfiltration: exfiltrationPlaybook,
  admin_change: adminChangePlaybook,
  runtime: runtimePlaybook,
  posture: posturePlaybook,
  generic: genericPlaybook,
};

export type { Playbook, StepSpec } from "./types.js";
