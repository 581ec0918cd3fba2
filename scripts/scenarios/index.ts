import { badDomainSinkhole } from "./bad-domain-sinkhole.js";
import { cryptomining } from "./cryptomining.js";
import { iamAnomalousGrant } from "./iam-anomalous-grant.js";
import { leakedSaKey } from "./leaked-sa-key.js";
import { publicBucket } from "./public-bucket.js";
import type { ScenarioDefinition } from "./scenario.js";
import { sshBruteForce } from "./ssh-brute-force.js";

/** Every scenario the generator writes, in output order. */
export const SCENARIOS: readonly ScenarioDefinition[] = [
  cryptomining,
  iamAnomalousGrant,
  badDomainSinkhole,
  sshBruteForce,
  leakedSaKey,
  publicBucket,
];
