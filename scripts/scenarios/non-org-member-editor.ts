import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { auditor, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-12-03T04:22:51.000Z";
const ADMIN = "admin.svc@cobaltml.ai";
const OUTSIDER = "dataflow.helper.2025@gmail.com";
const ROGUE_IP = "198.51.100.201";
const AGENT = "python-requests/2.32.3";

/**
 * Security Health Analytics finds a member outside the organization on the project's policy.
 * The grant was made by an account of the company's own domain that has no activity in the
 * month before, from an unknown network with a script's client; the Gmail member it made
 * editor then mints a key for the training service account and lists the buckets. The domain
 * is not an alibi: an account that never signs in normally and acts from nowhere known is
 * the finding.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const env = makeEnvironment(rng, {
    projectId: "cobalt-ml-prod",
    domain: "cobaltml.ai",
    vms: [
      makeVm(rng, { name: "trainer-1", role: "etl", host: 12 }),
      makeVm(rng, { name: "trainer-2", role: "etl", host: 13 }),
    ],
    buckets: ["cobalt-ml-datasets"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));
  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const grant = T - 31 * MINUTE;
  call(grant, {
    principal: ADMIN,
    callerIp: ROGUE_IP,
    userAgent: AGENT,
    serviceName: "cloudresourcemanager.googleapis.com",
    methodName: "SetIamPolicy",
    resourceName: `projects/${env.project.id}`,
    resource: { type: "project", labels: {} },
    permission: "resourcemanager.projects.setIamPolicy",
    request: {
      "@type": "type.googleapis.com/google.iam.v1.SetIamPolicyRequest",
      resource: env.project.id,
      updateMask: "bindings,etag",
    },
    bindingDeltas: [{ action: "ADD", role: "roles/editor", member: `user:${OUTSIDER}` }],
  });
  const trainer = `ml-trainer@${env.project.id}.iam.gserviceaccount.com`;
  call(grant + 9 * MINUTE, {
    principal: OUTSIDER,
    callerIp: ROGUE_IP,
    userAgent: AGENT,
    serviceName: "iam.googleapis.com",
    methodName: "google.iam.admin.v1.CreateServiceAccountKey",
    resourceName: `projects/-/serviceAccounts/${trainer}`,
    resource: { type: "service_account", labels: { email_id: trainer } },
    permission: "iam.serviceAccountKeys.create",
  });
  call(grant + 11 * MINUTE, {
    table: TABLES.dataAccess,
    principal: OUTSIDER,
    callerIp: ROGUE_IP,
    userAgent: AGENT,
    serviceName: "storage.googleapis.com",
    methodName: "storage.buckets.list",
    resourceName: `projects/_/buckets`,
    resource: { type: "gcs_bucket", labels: { bucket_name: "", location: "global" } },
    permission: "storage.buckets.list",
  });

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "securityHealthAnalytics",
    category: "NON_ORG_IAM_MEMBER",
    findingClass: "MISCONFIGURATION",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//cloudresourcemanager.googleapis.com/projects/${env.project.number}`,
      type: "google.cloud.resourcemanager.Project",
      displayName: env.project.id,
    },
    description: "A user outside the organization has IAM permissions on the project.",
    finding: {
      sourceProperties: {
        ReactivationCount: 0,
        OffendingIamRoles: JSON.stringify({
          invalidMembers: [{ member: `user:${OUTSIDER}`, roles: ["roles/editor"] }],
        }),
        ProjectId: env.project.id,
        ScannerName: "IAM_SCANNER",
        Explanation: "A user outside of your organization has IAM permissions on a project or organization.",
      },
    },
  });
  const intel = new StixBundle(rng.fork("intel"), "2025-11-15T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set([ROGUE_IP]));

  const expected: Expected = {
    scenario: "non-org-member-editor",
    category: "NON_ORG_IAM_MEMBER",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive", "inconclusive"],
    requiredIocs: [],
    requiredEvidence: [
      {
        id: "grant",
        description: `${ADMIN} granted roles/editor to ${OUTSIDER} from ${ROGUE_IP}`,
        anyOf: [ROGUE_IP],
      },
      {
        id: "next-moves",
        description: "the new member created a key for the training service account",
        anyOf: ["CreateServiceAccountKey"],
      },
    ],
    optionalEvidence: [{ id: "outsider", description: "the Gmail member", anyOf: [OUTSIDER] }],
    mitreTechniques: ["T1098"],
    probes: [
      {
        runbook: "iam_policy_changes",
        params: {},
        window: { hoursBefore: 2, hoursAfter: 1 },
        expect: [ADMIN, ROGUE_IP, OUTSIDER, "roles/editor"],
        why: "the grant, its author and address",
      },
      {
        runbook: "principal_activity",
        params: { principal: OUTSIDER },
        window: { hoursBefore: 1, hoursAfter: 2 },
        expect: ["CreateServiceAccountKey", ROGUE_IP],
        why: "what the new member did next",
      },
    ],
    story: `${ADMIN}, silent for a month, granted roles/editor to ${OUTSIDER} from ${ROGUE_IP} with ${AGENT}; nine minutes later the Gmail account minted a key for ${trainer} and listed the buckets, from the same address.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const nonOrgMemberEditor: ScenarioDefinition = {
  name: "non-org-member-editor",
  seed: "ferret/non-org-member-editor/v1",
  build,
};
