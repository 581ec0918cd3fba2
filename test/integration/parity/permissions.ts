/**
 * What each identity does in Google Cloud and the IAM permission each operation needs, by
 * where the code does it. The parity test checks every row against the roles Terraform grants
 * (terraform/iam.tf local.grants) through Google's predefined-role permissions
 * (test/fixtures/real/iam-roles), and every grant against the rows (no role nothing uses).
 *
 * Scopes name resources as local.grants does: project; topic/dead_letter_topic <topic>;
 * secret <key>; log_dataset; function <entry point>; source_bucket; gcf_sources_bucket.
 */
export interface Operation {
  sa: string;
  what: string;
  permission: string;
  scope: string;
  target?: string;
}

const FIRESTORE = ["datastore.entities.get", "datastore.entities.create", "datastore.entities.update"];
const EVENTS_TOPIC = "investigation-events";

function firestore(sa: string, what: string): Operation[] {
  return FIRESTORE.map((permission) => ({ sa, what, permission, scope: "project" }));
}

function publishesEvents(sa: string): Operation {
  return {
    sa,
    what: "publishes investigation events (functions/src/app/publish.ts)",
    permission: "pubsub.topics.publish",
    scope: "topic",
    target: EVENTS_TOPIC,
  };
}

function deadLetters(sa: string, topic: string): Operation {
  return {
    sa,
    what: "parks a message it can never process (settle() in functions/src/entry/pubsub-settle.ts)",
    permission: "pubsub.topics.publish",
    scope: "dead_letter_topic",
    target: topic,
  };
}

function gemini(sa: string): Operation {
  return {
    sa,
    what: "calls Gemini and embeddings on Vertex AI (functions/src/model/gemini.ts)",
    permission: "aiplatform.endpoints.predict",
    scope: "project",
  };
}

function otxKey(sa: string): Operation {
  return {
    sa,
    what: "mounts OTX_API_KEY (Cloud Run reads the secret as the function's account)",
    permission: "secretmanager.versions.access",
    scope: "secret",
    target: "otx-api-key",
  };
}

function invokes(sa: string, fn: string): Operation {
  return {
    sa,
    what: `calls ${fn} with an OIDC token`,
    permission: "run.routes.invoke",
    scope: "function",
    target: fn,
  };
}

export const OPERATIONS: readonly Operation[] = [
  ...firestore("ingest", "records investigations, claims the workflow start (app/ingest.ts)"),
  {
    sa: "ingest",
    what: "looks for a live investigation to group the finding with (adapters/firestore/governor-store.ts)",
    permission: "datastore.entities.list",
    scope: "project",
  },
  {
    sa: "ingest",
    what: "starts a workflow execution (adapters/workflows/executions-launcher.ts)",
    permission: "workflows.executions.create",
    scope: "project",
  },
  publishesEvents("ingest"),
  deadLetters("ingest", "scc-findings"),
  {
    sa: "ingest",
    what: "removes a finding from the governor's queue when it starts (adapters/firestore/governor-store.ts)",
    permission: "datastore.entities.delete",
    scope: "project",
  },

  ...firestore("planner", "reads the investigation, stores the plan"),
  gemini("planner"),
  otxKey("planner"),
  publishesEvents("planner"),

  ...firestore("stepExecutor", "stores step results and histories"),
  gemini("stepExecutor"),
  {
    sa: "stepExecutor",
    what: "runs log queries as jobs (adapters/bigquery)",
    permission: "bigquery.jobs.create",
    scope: "project",
  },
  {
    sa: "stepExecutor",
    what: "reads the log tables",
    permission: "bigquery.tables.getData",
    scope: "log_dataset",
  },
  {
    sa: "stepExecutor",
    what: "lists the log tables for planning",
    permission: "bigquery.tables.list",
    scope: "log_dataset",
  },
  otxKey("stepExecutor"),
  {
    sa: "stepExecutor",
    what: "publishes log-analysis sessions (subagent/publish.ts)",
    permission: "pubsub.topics.publish",
    scope: "topic",
    target: "agent-sessions",
  },
  publishesEvents("stepExecutor"),

  ...firestore(
    "responder",
    "reads approval records, claims and records an approved call's run (app/approval-responder.ts)",
  ),
  // It builds the step executor's tool catalog, whose intel adapter is constructed with the key.
  otxKey("responder"),
  publishesEvents("responder"),

  ...firestore("reflector", "stores reflections and plan updates"),
  gemini("reflector"),
  otxKey("reflector"),
  publishesEvents("reflector"),

  ...firestore("concluder", "stores the conclusion, indexes the finding's embedding"),
  gemini("concluder"),
  publishesEvents("concluder"),

  ...firestore("compressor", "stores compressed histories"),
  gemini("compressor"),
  publishesEvents("compressor"),

  ...firestore("memoryIntrospector", "writes and scores memories"),
  {
    sa: "memoryIntrospector",
    what: "deletes memories scored below the threshold",
    permission: "datastore.entities.delete",
    scope: "project",
  },
  gemini("memoryIntrospector"),
  deadLetters("memoryIntrospector", "agent-sessions"),

  ...firestore("notifier", "keeps Slack thread ids and once-only post claims"),
  {
    sa: "notifier",
    what: "mounts SLACK_BOT_TOKEN",
    permission: "secretmanager.versions.access",
    scope: "secret",
    target: "slack-bot-token",
  },
  deadLetters("notifier", EVENTS_TOPIC),
  {
    sa: "notifier",
    what: "asks the sweep function to free a finished investigation's governor slot (announceFinished in app/governor.ts)",
    permission: "pubsub.topics.publish",
    scope: "topic",
    target: "sweep-requests",
  },

  ...firestore(
    "sweep",
    "marks stalled investigations needs_human, frees governor slots (functions/src/roles/sweep.ts)",
  ),
  {
    sa: "sweep",
    what: "finds stalled investigations by query (app/sweep.ts)",
    permission: "datastore.entities.list",
    scope: "project",
  },
  {
    sa: "sweep",
    what: "starts the workflow execution of a finding the governor's queue releases (app/ingest.ts launchInvestigation)",
    permission: "workflows.executions.create",
    scope: "project",
  },
  {
    sa: "sweep",
    what: "removes a finding from the governor's queue when it starts (adapters/firestore/governor-store.ts)",
    permission: "datastore.entities.delete",
    scope: "project",
  },
  publishesEvents("sweep"),
  deadLetters("sweep", "sweep-requests"),

  {
    sa: "slackEvents",
    what: "reads the investigation to open the Dispute modal with ferret's verdict (functions/slack-events.ts)",
    permission: "datastore.entities.get",
    scope: "project",
  },
  {
    sa: "slackEvents",
    what: "hands each accepted click to the worker (functions/slack-events.ts)",
    permission: "pubsub.topics.publish",
    scope: "topic",
    target: "analyst-actions",
  },
  {
    sa: "slackEvents",
    what: "mounts SLACK_SIGNING_SECRET to verify Slack's signatures",
    permission: "secretmanager.versions.access",
    scope: "secret",
    target: "slack-signing-secret",
  },
  {
    sa: "slackEvents",
    what: "mounts SLACK_BOT_TOKEN (views.open for Dispute, usergroups.users.list for the allowlist)",
    permission: "secretmanager.versions.access",
    scope: "secret",
    target: "slack-bot-token",
  },

  ...firestore(
    "analystActions",
    "records analysts' decisions and lessons, claims thread posts (app/slack-actions.ts)",
  ),
  {
    sa: "analystActions",
    what: "mounts SLACK_BOT_TOKEN to edit the thread root and reply",
    permission: "secretmanager.versions.access",
    scope: "secret",
    target: "slack-bot-token",
  },
  deadLetters("analystActions", "analyst-actions"),

  ...["planner", "stepExecutor", "reflector", "concluder", "compressor", "responder"].map((fn) =>
    invokes("workflow", fn),
  ),
  {
    sa: "workflow",
    what: "writes call logs (call_log_level)",
    permission: "logging.logEntries.create",
    scope: "project",
  },

  ...["ingest", "memoryIntrospector", "notifier", "analystActions", "sweep"].map((fn) =>
    invokes("pubsubPush", fn),
  ),

  {
    sa: "build",
    what: "reads ferret's source archive",
    permission: "storage.objects.get",
    scope: "source_bucket",
  },
  {
    sa: "build",
    what: "fetches the staged source (gen2 builds read gcf-v2-sources-<number>-<region>)",
    permission: "storage.objects.get",
    scope: "gcf_sources_bucket",
  },
  {
    sa: "build",
    what: "pushes the function image to Artifact Registry",
    permission: "artifactregistry.repositories.uploadArtifacts",
    scope: "project",
  },
  { sa: "build", what: "writes build logs", permission: "logging.logEntries.create", scope: "project" },
];

/**
 * The web console (terraform/console.tf, only with enable_console). Its grants are resources of
 * their own, not rows of local.grants: one is a custom role, one goes to IAP's service agent
 * ("iap" here). Scopes as above; "function console" is the console's Cloud Run service.
 */
export const CONSOLE_OPERATIONS: readonly Operation[] = [
  {
    sa: "console",
    what: "reads an investigation, its results, reflections, events and Slack claims, a memory, the governor's state (console/pages/)",
    permission: "datastore.entities.get",
    scope: "project",
  },
  {
    sa: "console",
    what: "lists changed investigations, searches by IOC / principal / resource, lists memories and the queue, counts the queue (console/pages/)",
    permission: "datastore.entities.list",
    scope: "project",
  },
  {
    sa: "console",
    what: "begins the memory delete's transaction (adapters/firestore/memory-store.ts delete)",
    permission: "datastore.databases.get",
    scope: "project",
  },
  {
    sa: "console",
    what: "deletes the memory in that transaction's commit (console/actions.ts deleteMemory)",
    permission: "datastore.entities.delete",
    scope: "project",
  },
  {
    sa: "console",
    what: "publishes Dispute and Re-investigate as the Slack buttons do (console/actions.ts)",
    permission: "pubsub.topics.publish",
    scope: "topic",
    target: "analyst-actions",
  },
  {
    sa: "iap",
    what: "forwards a request IAP admitted, with its service agent's ID token (X-Serverless-Authorization)",
    permission: "run.routes.invoke",
    scope: "function",
    target: "console",
  },
];
