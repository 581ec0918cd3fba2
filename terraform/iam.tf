# One service account per function, plus the identities of the workflow, of Pub/Sub push
# deliveries and of function builds. Every grant ferret makes to them is a row of local.grants;
# the resources below only apply those rows (test/unit/terraform pins the expected set).
#
# Grants to Google-managed service agents live next to what they concern:
# pubsub.tf (Pub/Sub service agent: dead-lettering, push tokens) and scc.tf (SCC notifications).
# The optional web console's account, its grants and IAP's are in console.tf (enable_console).

locals {
  service_accounts = {
    ingest             = { account_id = "ferret-ingest", display_name = "ferret ingest function" }
    planner            = { account_id = "ferret-planner", display_name = "ferret planner function" }
    stepExecutor       = { account_id = "ferret-step-executor", display_name = "ferret step-executor function" }
    reflector          = { account_id = "ferret-reflector", display_name = "ferret reflector function" }
    concluder          = { account_id = "ferret-concluder", display_name = "ferret concluder function" }
    compressor         = { account_id = "ferret-compressor", display_name = "ferret compressor function" }
    responder          = { account_id = "ferret-responder", display_name = "ferret responder function (approved actions)" }
    memoryIntrospector = { account_id = "ferret-memory-introspector", display_name = "ferret memory-introspector function" }
    notifier           = { account_id = "ferret-notifier", display_name = "ferret notifier function" }
    sweep              = { account_id = "ferret-sweep", display_name = "ferret sweep function" }
    slackEvents        = { account_id = "ferret-slack-events", display_name = "ferret Slack events function" }
    analystActions     = { account_id = "ferret-analyst-actions", display_name = "ferret analyst-actions function" }
    workflow           = { account_id = "ferret-workflow", display_name = "ferret investigate workflow" }
    pubsubPush         = { account_id = "ferret-pubsub-push", display_name = "ferret Pub/Sub push identity" }
    build              = { account_id = "ferret-build", display_name = "ferret Cloud Build (function builds)" }
  }

  # scope:
  #   project        role on the ferret project
  #   topic          role on the Pub/Sub topic named by target
  #   dead_letter_topic  role on "<target>-dead-letter", the dead-letter topic of the topic named by target
  #   secret         role on the Secret Manager secret keyed by target (secrets.tf)
  #   log_dataset    role on the BigQuery log-sink dataset (var.log_dataset_id)
  #   function       role on the Cloud Run service behind the function keyed by target
  #   source_bucket  role on the bucket holding the source archive
  #   gcf_sources_bucket  role on gcf-v2-sources-<project number>-<region>, the bucket Cloud Functions
  #                  creates and builds from (a project grant conditioned on that bucket's name)
  grants = [
    # ingest: records investigations, queues them, announces them. It starts no workflow
    # execution: the sweep's drainer launches what the governor admits (app/governor.ts).
    { sa = "ingest", scope = "project", target = null, role = "roles/datastore.user" },
    { sa = "ingest", scope = "topic", target = "investigation-events", role = "roles/pubsub.publisher" },
    # Every new investigation goes through the storm governor's queue: ingest asks the sweep
    # function's drainer to run (requestDrain in app/governor.ts, decision 0039).
    { sa = "ingest", scope = "topic", target = "sweep-requests", role = "roles/pubsub.publisher" },
    # settle() (functions/src/entry/event-functions.ts) parks a message it can never process
    # in its topic's dead-letter topic at once, so each Pub/Sub-fed function publishes there.
    { sa = "ingest", scope = "dead_letter_topic", target = "scc-findings", role = "roles/pubsub.publisher" },

    # planner: reads/writes investigation state, calls Gemini. It builds the step executor's tool
    # registry to plan with, and the OTX adapter in it needs the key (mounted only with enable_otx).
    { sa = "planner", scope = "project", target = null, role = "roles/datastore.user" },
    { sa = "planner", scope = "project", target = null, role = "roles/aiplatform.user" },
    { sa = "planner", scope = "secret", target = "otx-api-key", role = "roles/secretmanager.secretAccessor" },
    { sa = "planner", scope = "topic", target = "investigation-events", role = "roles/pubsub.publisher" },

    # stepExecutor: tools, log analysis on the sink dataset only, OTX, sub-agent sessions.
    { sa = "stepExecutor", scope = "project", target = null, role = "roles/datastore.user" },
    { sa = "stepExecutor", scope = "project", target = null, role = "roles/aiplatform.user" },
    { sa = "stepExecutor", scope = "project", target = null, role = "roles/bigquery.jobUser" },
    { sa = "stepExecutor", scope = "log_dataset", target = null, role = "roles/bigquery.dataViewer" },
    { sa = "stepExecutor", scope = "secret", target = "otx-api-key", role = "roles/secretmanager.secretAccessor" },
    { sa = "stepExecutor", scope = "topic", target = "agent-sessions", role = "roles/pubsub.publisher" },
    { sa = "stepExecutor", scope = "topic", target = "investigation-events", role = "roles/pubsub.publisher" },

    # reflector: like the planner, builds the tool registry.
    { sa = "reflector", scope = "project", target = null, role = "roles/datastore.user" },
    { sa = "reflector", scope = "project", target = null, role = "roles/aiplatform.user" },
    { sa = "reflector", scope = "secret", target = "otx-api-key", role = "roles/secretmanager.secretAccessor" },
    { sa = "reflector", scope = "topic", target = "investigation-events", role = "roles/pubsub.publisher" },

    # concluder
    { sa = "concluder", scope = "project", target = null, role = "roles/datastore.user" },
    { sa = "concluder", scope = "project", target = null, role = "roles/aiplatform.user" },
    { sa = "concluder", scope = "topic", target = "investigation-events", role = "roles/pubsub.publisher" },

    # compressor
    { sa = "compressor", scope = "project", target = null, role = "roles/datastore.user" },
    { sa = "compressor", scope = "project", target = null, role = "roles/aiplatform.user" },
    { sa = "compressor", scope = "topic", target = "investigation-events", role = "roles/pubsub.publisher" },

    # responder: approval records in Firestore, announces them; runs approved calls through the
    # tool registry (the response actions' own roles are granted to it where they are defined).
    { sa = "responder", scope = "project", target = null, role = "roles/datastore.user" },
    { sa = "responder", scope = "secret", target = "otx-api-key", role = "roles/secretmanager.secretAccessor" },
    { sa = "responder", scope = "topic", target = "investigation-events", role = "roles/pubsub.publisher" },

    # memoryIntrospector: memories in Firestore, embeddings on Vertex AI.
    { sa = "memoryIntrospector", scope = "project", target = null, role = "roles/datastore.user" },
    { sa = "memoryIntrospector", scope = "project", target = null, role = "roles/aiplatform.user" },
    { sa = "memoryIntrospector", scope = "dead_letter_topic", target = "agent-sessions", role = "roles/pubsub.publisher" },

    # notifier: Slack thread ids in Firestore, the Slack bot token.
    { sa = "notifier", scope = "project", target = null, role = "roles/datastore.user" },
    { sa = "notifier", scope = "secret", target = "slack-bot-token", role = "roles/secretmanager.secretAccessor" },
    { sa = "notifier", scope = "dead_letter_topic", target = "investigation-events", role = "roles/pubsub.publisher" },
    # A finished investigation frees its storm-governor slot: the notifier sends a `finished`
    # request to the sweep function (announceFinished in app/governor.ts), which starts the next
    # queued finding.
    { sa = "notifier", scope = "topic", target = "sweep-requests", role = "roles/pubsub.publisher" },

    # sweep: marks stalled investigations needs_human and announces it; drains the governor's
    # queue, launching the released investigations' workflow executions.
    { sa = "sweep", scope = "project", target = null, role = "roles/datastore.user" },
    { sa = "sweep", scope = "project", target = null, role = "roles/workflows.invoker" },
    { sa = "sweep", scope = "topic", target = "investigation-events", role = "roles/pubsub.publisher" },
    { sa = "sweep", scope = "dead_letter_topic", target = "sweep-requests", role = "roles/pubsub.publisher" },

    # slackEvents: reads the investigation (the Dispute modal shows ferret's verdict), hands each
    # accepted click to analyst-actions; Slack's signing secret and the bot token (views.open,
    # usergroups.users.list). It is public (decision 0018), so it holds as little as possible.
    { sa = "slackEvents", scope = "project", target = null, role = "roles/datastore.viewer" },
    { sa = "slackEvents", scope = "topic", target = "analyst-actions", role = "roles/pubsub.publisher" },
    { sa = "slackEvents", scope = "secret", target = "slack-signing-secret", role = "roles/secretmanager.secretAccessor" },
    { sa = "slackEvents", scope = "secret", target = "slack-bot-token", role = "roles/secretmanager.secretAccessor" },

    # analystActions: records decisions and lessons, claims thread posts, edits the thread root.
    # Approve / Deny announce the decision before the callback; a question in the thread is
    # answered by the model. Its SCC write-back role is an organization custom role
    # (scc-writeback.tf); the callback and Re-investigate's execution a project one (approvals.tf).
    { sa = "analystActions", scope = "project", target = null, role = "roles/datastore.user" },
    { sa = "analystActions", scope = "project", target = null, role = "roles/aiplatform.user" },
    { sa = "analystActions", scope = "topic", target = "investigation-events", role = "roles/pubsub.publisher" },
    { sa = "analystActions", scope = "secret", target = "slack-bot-token", role = "roles/secretmanager.secretAccessor" },
    { sa = "analystActions", scope = "dead_letter_topic", target = "analyst-actions", role = "roles/pubsub.publisher" },

    # Every function's spans and metrics (docs/decisions/0055, FERRET_TELEMETRY_EXPORTER): the
    # Cloud Telemetry Traces Writer role writes spans over OTLP to the Telemetry API
    # (telemetry.traces.write); Monitoring's metric writer writes time series and creates their
    # descriptors. Cloud Trace's agent role (cloudtrace.traces.patch, for the deprecated exporter's
    # BatchWriteSpans) stays until Google's migration guide says it can go (0055). Write-only: none
    # reads a trace or a metric.
    { sa = "ingest", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "ingest", scope = "project", target = null, role = "roles/monitoring.metricWriter" },
    { sa = "planner", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "planner", scope = "project", target = null, role = "roles/monitoring.metricWriter" },
    { sa = "stepExecutor", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "stepExecutor", scope = "project", target = null, role = "roles/monitoring.metricWriter" },
    { sa = "reflector", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "reflector", scope = "project", target = null, role = "roles/monitoring.metricWriter" },
    { sa = "concluder", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "concluder", scope = "project", target = null, role = "roles/monitoring.metricWriter" },
    { sa = "compressor", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "compressor", scope = "project", target = null, role = "roles/monitoring.metricWriter" },
    { sa = "responder", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "responder", scope = "project", target = null, role = "roles/monitoring.metricWriter" },
    { sa = "memoryIntrospector", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "memoryIntrospector", scope = "project", target = null, role = "roles/monitoring.metricWriter" },
    { sa = "notifier", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "notifier", scope = "project", target = null, role = "roles/monitoring.metricWriter" },
    { sa = "sweep", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "sweep", scope = "project", target = null, role = "roles/monitoring.metricWriter" },
    { sa = "slackEvents", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "slackEvents", scope = "project", target = null, role = "roles/monitoring.metricWriter" },
    { sa = "analystActions", scope = "project", target = null, role = "roles/telemetry.tracesWriter" },
    { sa = "analystActions", scope = "project", target = null, role = "roles/monitoring.metricWriter" },

    # workflow: calls the HTTP functions and nothing else.
    { sa = "workflow", scope = "project", target = null, role = "roles/logging.logWriter" },
    { sa = "workflow", scope = "function", target = "planner", role = "roles/run.invoker" },
    { sa = "workflow", scope = "function", target = "stepExecutor", role = "roles/run.invoker" },
    { sa = "workflow", scope = "function", target = "reflector", role = "roles/run.invoker" },
    { sa = "workflow", scope = "function", target = "concluder", role = "roles/run.invoker" },
    { sa = "workflow", scope = "function", target = "compressor", role = "roles/run.invoker" },
    { sa = "workflow", scope = "function", target = "responder", role = "roles/run.invoker" },

    # pubsubPush: the OIDC identity of push deliveries; may invoke the Pub/Sub-fed functions only.
    { sa = "pubsubPush", scope = "function", target = "ingest", role = "roles/run.invoker" },
    { sa = "pubsubPush", scope = "function", target = "memoryIntrospector", role = "roles/run.invoker" },
    { sa = "pubsubPush", scope = "function", target = "notifier", role = "roles/run.invoker" },
    { sa = "pubsubPush", scope = "function", target = "sweep", role = "roles/run.invoker" },
    { sa = "pubsubPush", scope = "function", target = "analystActions", role = "roles/run.invoker" },

    # build: Cloud Build identity for the function builds. Gen2 copies the archive from our bucket
    # into gcf-v2-sources-<number>-<region> and the build fetches it from there
    # (hashicorp/terraform-provider-google#20571: "Access to bucket gcf-v2-sources-… denied").
    # Storage Object Admin, as the provider's own builder example grants
    # (GoogleCloudPlatform/magic-modules mmv1/templates/terraform/examples/cloudfunctions2_basic_builder.tf.tmpl
    # at c1a8ac6728208a7a733fa32cb3c9a6e401b43775): the build writes to the staging bucket, not only reads.
    { sa = "build", scope = "project", target = null, role = "roles/logging.logWriter" },
    { sa = "build", scope = "project", target = null, role = "roles/artifactregistry.writer" },
    { sa = "build", scope = "source_bucket", target = null, role = "roles/storage.objectAdmin" },
    { sa = "build", scope = "gcf_sources_bucket", target = null, role = "roles/storage.objectAdmin" },
  ]

  # Cloud Functions creates this bucket on the first deployment in a region, so it cannot be
  # granted on before it exists; the project-level grant below is conditioned on its name.
  gcf_sources_bucket = "gcf-v2-sources-${data.google_project.ferret.number}-${var.region}"

  # Legacy dataset-ACL names of the predefined roles used with scope log_dataset.
  bigquery_legacy_roles = {
    "roles/bigquery.dataViewer" = "READER"
  }
}

resource "google_service_account" "sa" {
  for_each = local.service_accounts

  project      = var.project_id
  account_id   = each.value.account_id
  display_name = each.value.display_name
  description  = "Managed by Terraform (ferret). Roles: terraform/iam.tf local.grants."

  depends_on = [google_project_service.api]
}

resource "google_project_iam_member" "grant" {
  for_each = { for g in local.grants : "${g.sa} ${g.role}" => g if g.scope == "project" }

  project = var.project_id
  role    = each.value.role
  member  = google_service_account.sa[each.value.sa].member
}

data "google_project" "ferret" {
  project_id = var.project_id
}

resource "google_pubsub_topic_iam_member" "grant" {
  for_each = { for g in local.grants : "${g.sa} ${g.role} ${g.target}" => g if g.scope == "topic" }

  project = var.project_id
  topic   = google_pubsub_topic.topic[each.value.target].name
  role    = each.value.role
  member  = google_service_account.sa[each.value.sa].member
}

resource "google_pubsub_topic_iam_member" "dead_letter_grant" {
  for_each = { for g in local.grants : "${g.sa} ${g.role} ${g.target}" => g if g.scope == "dead_letter_topic" }

  project = var.project_id
  topic   = google_pubsub_topic.dead_letter[each.value.target].name
  role    = each.value.role
  member  = google_service_account.sa[each.value.sa].member
}

# Only on secrets that are mounted: the OTX key is read by nobody while enable_otx is false.
resource "google_secret_manager_secret_iam_member" "grant" {
  for_each = { for g in local.grants : "${g.sa} ${g.role} ${g.target}" => g if g.scope == "secret" && contains(local.enabled_secrets, g.target) }

  project   = var.project_id
  secret_id = google_secret_manager_secret.secret[each.value.target].secret_id
  role      = each.value.role
  member    = google_service_account.sa[each.value.sa].member
}

# A dataset access entry, not google_bigquery_dataset_iam_member: the IAM resources rewrite the
# dataset's ACL and drop its authorized views, and the log-sink dataset is often shared that way.
# Dataset ACLs report predefined roles in their legacy form, so write them that way (no perpetual diff).
resource "google_bigquery_dataset_access" "grant" {
  for_each = { for g in local.grants : "${g.sa} ${g.role}" => g if g.scope == "log_dataset" }

  project       = local.log_dataset_project
  dataset_id    = var.log_dataset_id
  role          = local.bigquery_legacy_roles[each.value.role]
  user_by_email = google_service_account.sa[each.value.sa].email
}

resource "google_cloud_run_v2_service_iam_member" "grant" {
  for_each = { for g in local.grants : "${g.sa} ${g.role} ${g.target}" => g if g.scope == "function" }

  project  = var.project_id
  location = var.region
  name     = google_cloudfunctions2_function.function[each.value.target].service_config[0].service
  role     = each.value.role
  member   = google_service_account.sa[each.value.sa].member
}

# The one public grant: Slack calls slackEvents without a Google identity, so Cloud Run must let
# anyone invoke it; the function refuses every request without a valid Slack signature within
# the replay window (docs/decisions/0018-public-slack-endpoint.md). test/unit/terraform/iam.test.ts
# allows allUsers here and nowhere else.
resource "google_cloud_run_v2_service_iam_member" "public_invoker" {
  for_each = var.slack_events_public ? local.public_functions : {}

  project  = var.project_id
  location = var.region
  name     = google_cloudfunctions2_function.function[each.key].service_config[0].service
  role     = "roles/run.invoker"
  member   = "allUsers"
}

resource "google_storage_bucket_iam_member" "grant" {
  for_each = { for g in local.grants : "${g.sa} ${g.role}" => g if g.scope == "source_bucket" }

  bucket = google_storage_bucket.source.name
  role   = each.value.role
  member = google_service_account.sa[each.value.sa].member
}

# Objects in a bucket are named projects/_/buckets/BUCKET/objects/OBJECT in IAM conditions, so the
# prefix admits the staging bucket and its objects only.
resource "google_project_iam_member" "gcf_sources" {
  for_each = { for g in local.grants : "${g.sa} ${g.role}" => g if g.scope == "gcf_sources_bucket" }

  project = var.project_id
  role    = each.value.role
  member  = google_service_account.sa[each.value.sa].member

  condition {
    title       = "ferret-gcf-v2-sources"
    description = "Only the Cloud Functions gen2 staging bucket the builds fetch the source from."
    expression  = "resource.name.startsWith(\"projects/_/buckets/${local.gcf_sources_bucket}\")"
  }
}

# The provider's documented builder example (google_cloudfunctions2_function,
# "cloudfunctions2_basic_builder") waits 60 s after granting the build account its roles: a
# build that starts before they propagate fails to fetch the source.
resource "time_sleep" "build_iam_propagation" {
  create_duration = "60s"

  depends_on = [
    google_project_iam_member.grant,
    google_project_iam_member.gcf_sources,
    google_storage_bucket_iam_member.grant,
  ]
}
