import { badDomainSinkhole } from "./bad-domain-sinkhole.js";
import { bqExfilNewAddress } from "./bq-exfil-new-address.js";
import { breakglassManagedDevice } from "./breakglass-managed-device.js";
import { cryptomining } from "./cryptomining.js";
import { ctdReverseShell } from "./ctd-reverse-shell.js";
import { externalMemberAdded } from "./external-member-added.js";
import { gkePrivilegedDaemonset } from "./gke-privileged-daemonset.js";
import { iamAnomalousGrant } from "./iam-anomalous-grant.js";
import { leakedSaKey } from "./leaked-sa-key.js";
import { log4jBlockedProbe } from "./log4j-blocked-probe.js";
import { outgoingDos } from "./outgoing-dos.js";
import { publicBucket } from "./public-bucket.js";
import type { ScenarioDefinition } from "./scenario.js";
import { sshBruteForce } from "./ssh-brute-force.js";
import { startupScriptCiPattern } from "./startup-script-ci-pattern.js";
import { vmtdRootkitStaleLogs } from "./vmtd-rootkit-stale-logs.js";
import { vpcscPerimeterOpened } from "./vpcsc-perimeter-opened.js";

/** Every scenario the generator writes, in output order. */
export const SCENARIOS: readonly ScenarioDefinition[] = [
  cryptomining,
  iamAnomalousGrant,
  badDomainSinkhole,
  sshBruteForce,
  leakedSaKey,
  publicBucket,
  // Issue 30: categories without a playbook of their own, built from real finding shapes.
  ctdReverseShell,
  outgoingDos,
  vmtdRootkitStaleLogs,
  log4jBlockedProbe,
  externalMemberAdded,
  breakglassManagedDevice,
  vpcscPerimeterOpened,
  bqExfilNewAddress,
  startupScriptCiPattern,
  gkePrivilegedDaemonset,
];
