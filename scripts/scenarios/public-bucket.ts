import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { LogBook } from "./log-book.js";
import { auditEntry, TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const EVENT_TIME = "2025-11-18T16:22:09.600Z";
const SITE_BUCKET = "acme-brand-site-assets";
const BACKUP_BUCKET = "acme-brand-cms-backups";
const TF_AGENT = "Terraform/1.9.5 (+https://www.terraform.io) terraform-provider-google/6.8.0";
const UPLOAD_AGENT = "gcloud-python/2.18.0 gl-python/3.11.2 command/gcloud.storage.rsync";

const SITE_FILES = [
  "index.html",
  "404.html",
  "about/index.html",
  "pricing/index.html",
  "blog/index.html",
  "assets/css/site.css",
  "assets/js/site.js",
  "assets/img/hero.webp",
  "assets/img/logo.svg",
  "assets/img/team.webp",
  "assets/fonts/inter-var.woff2",
  "robots.txt",
  "sitemap.xml",
  "favicon.ico",
];

/**
 * The marketing site moves from the CMS VM to static hosting on a bucket. The reviewed
 * Terraform change makes the bucket public (allUsers objectViewer) and configures it as a
 * website; the deploy pipeline uploads the built site. Security Health Analytics reports a
 * public bucket — correctly, and by design. The CMS backup bucket stays private.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [
    makeVm(rng, { name: "cms-1", role: "web", host: 20, externalIp: "34.145.2.80" }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.145.2.2" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-brand-web",
    domain: "acme-brand.io",
    vms,
    buckets: [BACKUP_BUCKET],
    users: ["grace.liu", "hugo.martin"],
  });
  const { project } = env;
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 10 * HOUR, end: T + 2 * HOUR }, rng.fork("noise"), {
    flows: 1300,
    dns: 600,
    dataAccess: 200,
  });

  const signal = rng.fork("signal");
  const { terraform, ci } = env.serviceAccounts;
  const site = { type: "gcs_bucket", labels: { bucket_name: SITE_BUCKET, location: "us" } };
  const ciIp = env.ciIps[0]!;
  const applyAt = T - 18 * MINUTE;
  book.add(
    TABLES.activity,
    auditEntry(signal, {
      table: TABLES.activity,
      project,
      time: applyAt,
      serviceName: "storage.googleapis.com",
      methodName: "storage.buckets.create",
      resourceName: `projects/_/buckets/${SITE_BUCKET}`,
      resource: site,
      principal: terraform,
      callerIp: ciIp,
      userAgent: TF_AGENT,
      permission: "storage.buckets.create",
      request: {
        "@type": "type.googleapis.com/storage.buckets.insert",
        name: SITE_BUCKET,
        location: "US",
        labels: { purpose: "public-website", owner: "marketing", change: "CHG-4821" },
        iamConfiguration: { uniformBucketLevelAccess: { enabled: true } },
      },
    }),
  );
  book.add(
    TABLES.activity,
    auditEntry(signal, {
      table: TABLES.activity,
      project,
      time: applyAt + 6_000,
      serviceName: "storage.googleapis.com",
      methodName: "storage.buckets.update",
      resourceName: `projects/_/buckets/${SITE_BUCKET}`,
      resource: site,
      principal: terraform,
      callerIp: ciIp,
      userAgent: TF_AGENT,
      permission: "storage.buckets.update",
      request: {
        "@type": "type.googleapis.com/storage.buckets.update",
        website: { mainPageSuffix: "index.html", notFoundPage: "404.html" },
      },
    }),
  );
  const publicRead = { action: "ADD" as const, role: "roles/storage.objectViewer", member: "allUsers" };
  book.add(
    TABLES.activity,
    auditEntry(signal, {
      table: TABLES.activity,
      project,
      time: applyAt + 11_000,
      serviceName: "storage.googleapis.com",
      methodName: "storage.setIamPermissions",
      resourceName: `projects/_/buckets/${SITE_BUCKET}`,
      resource: site,
      principal: terraform,
      callerIp: ciIp,
      userAgent: TF_AGENT,
      permission: "storage.buckets.setIamPolicy",
      request: {
        "@type": "type.googleapis.com/google.iam.v1.SetIamPolicyRequest",
        resource: `projects/_/buckets/${SITE_BUCKET}`,
        policy: { bindings: [{ role: publicRead.role, members: ["allUsers"] }] },
      },
      bindingDeltas: [publicRead],
    }),
  );
  // The deploy pipeline uploads the built site a few minutes later.
  for (const [i, file] of SITE_FILES.entries()) {
    book.add(
      TABLES.dataAccess,
      auditEntry(signal, {
        table: TABLES.dataAccess,
        project,
        time: applyAt + 4 * MINUTE + i * signal.int(400, 1_500),
        serviceName: "storage.googleapis.com",
        methodName: "storage.objects.create",
        resourceName: `projects/_/buckets/${SITE_BUCKET}/objects/${file}`,
        resource: site,
        principal: ci,
        callerIp: ciIp,
        userAgent: UPLOAD_AGENT,
        permission: "storage.objects.create",
      }),
    );
  }
  // The CMS keeps backing up to its private bucket, as every hour.
  for (let t = T - 9 * HOUR; t < T + 2 * HOUR; t += HOUR) {
    book.add(
      TABLES.dataAccess,
      auditEntry(signal, {
        table: TABLES.dataAccess,
        project,
        time: t + signal.int(0, 120_000),
        serviceName: "storage.googleapis.com",
        methodName: "storage.objects.create",
        resourceName: `projects/_/buckets/${BACKUP_BUCKET}/objects/cms/db-${new Date(t).toISOString().slice(0, 13)}.sql.gz`,
        resource: { type: "gcs_bucket", labels: { bucket_name: BACKUP_BUCKET, location: "us-central1" } },
        principal: env.serviceAccounts.computeDefault,
        callerIp: vms[0]!.ip,
        userAgent: "gcloud-python/2.18.0",
        permission: "storage.objects.create",
      }),
    );
  }

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "securityHealthAnalytics",
    category: "PUBLIC_BUCKET_ACL",
    findingClass: "MISCONFIGURATION",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//storage.googleapis.com/${SITE_BUCKET}`,
      type: "google.cloud.storage.Bucket",
      displayName: SITE_BUCKET,
    },
    description: "Cloud Storage buckets should not be anonymously or publicly accessible.",
    externalUri: `https://console.cloud.google.com/storage/browser/${SITE_BUCKET}?project=${project.id}`,
    finding: {
      sourceProperties: {
        ScannerName: "STORAGE_SCANNER",
        ResourcePath: [`projects/${project.id}/`, `organizations/${env.orgId}/`],
        ReactivationCount: 0,
        ExceptionInstructions:
          'Add the security mark "allow_public_bucket_acl" to the asset with a value of "true" to prevent this finding from being activated again.',
        SeverityLevel: "High",
        Recommendation:
          "Remove allUsers and allAuthenticatedUsers from the bucket's IAM policy unless the bucket is meant to be public.",
        Explanation: "This bucket is public and can be accessed by anyone on the Internet.",
      },
      mitreAttack: { primaryTactic: "COLLECTION", primaryTechniques: ["DATA_FROM_CLOUD_STORAGE_OBJECT"] },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-11-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set([ciIp]));

  const expected: Expected = {
    scenario: "public-bucket",
    category: "PUBLIC_BUCKET_ACL",
    verdict: "benign",
    acceptableVerdicts: ["benign", "false_positive"],
    requiredIocs: [],
    requiredEvidence: [
      {
        id: "public-grant",
        description: "allUsers got roles/storage.objectViewer on the site bucket",
        anyOf: ["allUsers"],
      },
      {
        id: "by-pipeline",
        description:
          "the grant came from the Terraform service account on the CI runners, with the bucket's creation",
        anyOf: [terraform, ciIp],
      },
      {
        id: "website-intent",
        description: "the bucket is labeled and configured as a public website",
        anyOf: ["public-website", "mainPageSuffix", "CHG-4821"],
      },
    ],
    optionalEvidence: [
      {
        id: "static-content",
        description: "the only objects are the built site's static files",
        anyOf: ["assets/", "index.html", ".webp"],
      },
      {
        id: "backups-private",
        description: "the CMS backup bucket got no IAM change and stays private",
        anyOf: [BACKUP_BUCKET],
      },
    ],
    mitreTechniques: ["T1530"],
    probes: [
      {
        runbook: "bucket_iam_changes",
        params: { bucket: SITE_BUCKET },
        window: { hoursBefore: 2, hoursAfter: 1 },
        expect: ["allUsers", terraform, "public-website", "mainPageSuffix", ciIp],
        why: "the public grant in the reviewed Terraform change that created the website bucket",
      },
      {
        runbook: "bucket_data_access",
        params: { bucket: SITE_BUCKET },
        window: { hoursBefore: 2, hoursAfter: 1 },
        expect: [ci, "storage.objects.create"],
        why: "only the deploy pipeline wrote to it",
      },
      {
        runbook: "bucket_iam_changes",
        params: { bucket: BACKUP_BUCKET },
        window: { hoursBefore: 10, hoursAfter: 1 },
        expect: [],
        absent: ["allUsers", "allAuthenticatedUsers", "setIamPermissions"],
        rows: "some",
        why: "the backup bucket only got lifecycle updates",
      },
    ],
    story:
      `Terraform created ${SITE_BUCKET} with labels purpose=public-website (change CHG-4821), set it up as a website and granted allUsers objectViewer; ` +
      "the deploy pipeline then uploaded only the built static site. The bucket is public by design; the CMS backups stay private.",
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const publicBucket: ScenarioDefinition = {
  name: "public-bucket",
  seed: "ferret/public-bucket/v1",
  build,
};
