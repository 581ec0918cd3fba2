import type { FamilyId } from "../families.js";
import { badIndicatorPlaybook } from "./bad-indicator.js";
import { bruteForcePlaybook } from "./brute-force.js";
import { credentialAccessPlaybook } from "./credential-access.js";
import { cryptominingPlaybook } from "./cryptomining.js";
import { genericPlaybook } from "./generic.js";
import { iamGrantPlaybook } from "./iam-grant.js";
import { publicBucketPlaybook } from "./public-bucket.js";
import type { PlaybookFor } from "./types.js";

export const PLAYBOOKS: Record<FamilyId, PlaybookFor> = {
  cryptomining: cryptominingPlaybook,
  iam_grant: iamGrantPlaybook,
  bad_indicator: badIndicatorPlaybook,
  brute_force: bruteForcePlaybook,
  credential_access: credentialAccessPlaybook,
  public_bucket: publicBucketPlaybook,
  generic: genericPlaybook,
};

export type { Playbook, StepSpec } from "./types.js";
