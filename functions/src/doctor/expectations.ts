import { FINDING_EMBEDDING_INDEX } from "../adapters/firestore/finding-embeddings.js";
import {
  type CompositeIndex,
  INVESTIGATION_INDEXES,
  type VectorIndex,
} from "../adapters/firestore/indexes.js";
import { MEMORY_VECTOR_INDEX } from "../adapters/firestore/memory-store.js";
import { ROLES, type RoleName } from "../roles/index.js";

/**
 * What a working deployment has, as terraform/ creates it (test/unit/terraform/doctor.test.ts
 * checks each table against the .tf files), for `ferret doctor` to compare a project with.
 */
export const REQUIRED_APIS: readonly string[] = [
  "aiplatform.googleapis.com",
  "artifactregistry.googleapis.com",
  "bigquery.googleapis.com",
  "cloudbuild.googleapis.com",
  "cloudfunctions.googleapis.com",
  "cloudresourcemanager.googleapis.com",
  "cloudscheduler.googleapis.com",
  "cloudtrace.googleapis.com",
  "firestore.googleapis.com",
  "iam.googleapis.com",
  "iamcredentials.googleapis.com",
  "logging.googleapis.com",
  "monitoring.googleapis.com",
  "pubsub.googleapis.com",
  "run.googleapis.com",
  "secretmanager.googleapis.com",
  "securitycenter.googleapis.com",
  "storage.googleapis.com",
  "telemetry.googleapis.com",
  "workflowexecutions.googleapis.com",
  "workflows.googleapis.com",
];

/** Cloud Functions service name and service account id of each entry point. */
export const FUNCTIONS: Readonly<Record<RoleName, { service: string; accountId: string }>> = {
  ingest: { service: "ferret-ingest", accountId: "ferret-ingest" },
  planner: { service: "ferret-planner", accountId: "ferret-planner" },
  stepExecutor: { service: "ferret-step-executor", accountId: "ferret-step-executor" },
  reflector: { service: "ferret-reflector", accountId: "ferret-reflector" },
  concluder: { service: "ferret-concluder", accountId: "ferret-concluder" },
  compressor: { service: "ferret-compressor", accountId: "ferret-compressor" },
  responder: { service: "ferret-responder", accountId: "ferret-responder" },
  memoryIntrospector: { service: "ferret-memory-introspector", accountId: "ferret-memory-introspector" },
  notifier: { service: "ferret-notifier", accountId: "ferret-notifier" },
  sweep: { service: "ferret-sweep", accountId: "ferret-sweep" },
  slackEvents: { service: "ferret-slack-events", accountId: "ferret-slack-events" },
  analystActions: { service: "ferret-analyst-actions", accountId: "ferret-analyst-actions" },
};

/** Every function writes its spans and metrics (terraform/iam.tf, docs/decisions/0055). */
const TELEMETRY = ["roles/telemetry.tracesWriter", "roles/monitoring.metricWriter"] as const;

/** Roles each function's account holds on the project (resource-level grants are not listed). */
export const PROJECT_ROLES: Readonly<Record<RoleName, readonly string[]>> = {
  ingest: ["roles/datastore.user", ...TELEMETRY],
  planner: ["roles/datastore.user", "roles/aiplatform.user", ...TELEMETRY],
  stepExecutor: ["roles/datastore.user", "roles/aiplatform.user", "roles/bigquery.jobUser", ...TELEMETRY],
  reflector: ["roles/datastore.user", "roles/aiplatform.user", ...TELEMETRY],
  concluder: ["roles/datastore.user", "roles/aiplatform.user", ...TELEMETRY],
  compressor: ["roles/datastore.user", "roles/aiplatform.user", ...TELEMETRY],
  responder: ["roles/datastore.user", ...TELEMETRY],
  memoryIntrospector: ["roles/datastore.user", "roles/aiplatform.user", ...TELEMETRY],
  notifier: ["roles/datastore.user", ...TELEMETRY],
  sweep: ["roles/datastore.user", "roles/workflows.invoker", ...TELEMETRY],
  slackEvents: ["roles/datastore.viewer", ...TELEMETRY],
  analystActions: ["roles/datastore.user", "roles/aiplatform.user", ...TELEMETRY],
};

/** Secret Manager secrets and the environment variable each is mounted as. */
export const SECRETS = [
  { secretId: "ferret-slack-bot-token", env: "SLACK_BOT_TOKEN" },
  { secretId: "ferret-slack-signing-secret", env: "SLACK_SIGNING_SECRET" },
  { secretId: "ferret-otx-api-key", env: "OTX_API_KEY" },
] as const;

export const REQUIRED_INDEXES: { composite: readonly CompositeIndex[]; vector: readonly VectorIndex[] } = {
  composite: INVESTIGATION_INDEXES,
  vector: [FINDING_EMBEDDING_INDEX, MEMORY_VECTOR_INDEX],
};

export const ENTRY_POINT_NAMES: readonly RoleName[] = ROLES.map((e) => e.name);
