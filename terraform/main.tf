# ferret on Google Cloud: SCC findings -> Pub/Sub -> ingest -> governor queue -> sweep -> Workflows -> HTTP functions -> Slack.
#
# Files by concern:
#   apis.tf       required APIs
#   iam.tf        one service account per function (+ workflow, Pub/Sub push, build) and every grant
#   pubsub.tf     topics, push subscriptions, dead-letter topics, Pub/Sub service agent grants
#   functions.tf  source archive and the Cloud Functions (gen2)
#   workflow.tf   the investigate workflow (templates/investigate.yaml.tftpl)
#   firestore.tf  database, composite and vector indexes
#   secrets.tf    Secret Manager secrets (values are added out of band, never in state)
#   scc.tf        SCC v2 organization notification config and its publisher grant
#   console.tf    the web console behind Identity-Aware Proxy (optional: enable_console)

provider "google" {
  project = var.project_id
  region  = var.region

  # Organization-level SCC calls need a quota project; use ferret's own.
  billing_project       = var.project_id
  user_project_override = true

  default_labels = var.labels
}

provider "google-beta" {
  project = var.project_id
  region  = var.region

  billing_project       = var.project_id
  user_project_override = true

  default_labels = var.labels
}

# -----------------------------------------------------------------------------
# What the code expects. Keep aligned with functions/src/platform/topics.ts and
# functions/src/roles/index.ts (test/unit/terraform checks both ways).
# -----------------------------------------------------------------------------

locals {
  # TOPICS in functions/src/platform/topics.ts.
  topics = ["scc-findings", "investigation-events", "agent-sessions", "analyst-actions", "sweep-requests"]

  # ROLES in functions/src/roles/index.ts. The key is the exported entry point
  # (build_config.entry_point); `name` is the Cloud Functions / Cloud Run service name.
  # trigger = "pubsub": HTTP function fed by an authenticated push subscription on `topic`
  #   (functions-framework turns the push body into the CloudEvent the code registers for).
  # trigger = "http": called only by the investigate workflow, with an OIDC token.
  # ordered: the push subscription delivers messages with the same ordering key in order.
  # public: reachable from the internet and invokable by allUsers (the run.invoker binding in
  #   iam.tf): only slackEvents, which Slack calls without a Google identity and which refuses
  #   every request without a valid Slack signature (docs/decisions/0018-public-slack-endpoint.md).
  functions = {
    ingest = {
      name        = "ferret-ingest"
      trigger     = "pubsub"
      topic       = "scc-findings"
      ordered     = false
      public      = false
      description = "ferret: parses SCC notifications, applies policy and dedup, records the investigation, starts the workflow."
    }
    planner = {
      name        = "ferret-planner"
      trigger     = "http"
      topic       = null
      ordered     = false
      public      = false
      description = "ferret: writes the investigation plan (called by the workflow)."
    }
    stepExecutor = {
      name        = "ferret-step-executor"
      trigger     = "http"
      topic       = null
      ordered     = false
      public      = false
      description = "ferret: executes one plan step with its tools, including the log-analysis sub-agent (called by the workflow)."
    }
    reflector = {
      name        = "ferret-reflector"
      trigger     = "http"
      topic       = null
      ordered     = false
      public      = false
      description = "ferret: reflects on step results and decides the next action (called by the workflow)."
    }
    concluder = {
      name        = "ferret-concluder"
      trigger     = "http"
      topic       = null
      ordered     = false
      public      = false
      description = "ferret: writes the verdict, evidence, IOCs and recommended actions (called by the workflow)."
    }
    compressor = {
      name        = "ferret-compressor"
      trigger     = "http"
      topic       = null
      ordered     = false
      public      = false
      description = "ferret: compresses the investigation history under context pressure (called by the workflow)."
    }
    responder = {
      name        = "ferret-responder"
      trigger     = "http"
      topic       = null
      ordered     = false
      public      = false
      description = "ferret: records an acting tool call the workflow pauses on, and runs it once a person approved it (called by the workflow)."
    }
    memoryIntrospector = {
      name        = "ferret-memory-introspector"
      trigger     = "pubsub"
      topic       = "agent-sessions"
      ordered     = false
      public      = false
      description = "ferret: learns and scores memories from log-analysis sub-agent sessions."
    }
    notifier = {
      name        = "ferret-notifier"
      trigger     = "pubsub"
      topic       = "investigation-events"
      ordered     = true
      public      = false
      description = "ferret: posts one Slack thread per investigation (plan, progress, conclusion)."
    }
    sweep = {
      name        = "ferret-sweep"
      trigger     = "pubsub"
      topic       = "sweep-requests"
      ordered     = false
      public      = false
      description = "ferret: on Cloud Scheduler's requests, marks investigations whose workflow died as needs_human; drains the storm governor's queue."
    }
    slackEvents = {
      name        = "ferret-slack-events"
      trigger     = "http"
      topic       = null
      ordered     = false
      public      = true
      description = "ferret: Slack's interactions and Events API endpoint; checks the signature and the analyst, hands the work to analyst-actions."
    }
    analystActions = {
      name        = "ferret-analyst-actions"
      trigger     = "pubsub"
      topic       = "analyst-actions"
      ordered     = false
      public      = false
      description = "ferret: records analysts' decisions, writes them to SCC, keeps the lesson and edits the Slack thread."
    }
  }

  pubsub_functions = { for key, fn in local.functions : key => fn if fn.trigger == "pubsub" }
  # The functions the investigate workflow calls (slackEvents is HTTP too, but Slack calls it).
  http_functions   = { for key, fn in local.functions : key => fn if fn.trigger == "http" && !fn.public }
  public_functions = { for key, fn in local.functions : key => fn if fn.public }

  # Topics consumed by a push subscription; each gets "<topic>-dead-letter" (deadLetterTopic() in topics.ts).
  dead_letter_topics = toset([for fn in values(local.pubsub_functions) : fn.topic])

  workflow_name       = "ferret-investigate"
  log_dataset_project = coalesce(var.log_dataset_project_id, var.project_id)
}

# -----------------------------------------------------------------------------
# Environment contract: every variable the code reads, in one place.
# env_groups holds the names and values; function_env_groups says which function gets which group.
# Secrets are injected from Secret Manager as environment variables (secret_env).
# -----------------------------------------------------------------------------

locals {
  env_groups = {
    common = {
      GOOGLE_CLOUD_PROJECT      = var.project_id
      FERRET_FIRESTORE_DATABASE = google_firestore_database.ferret.name
    }
    model = {
      FERRET_MODEL_PROVIDER     = "gemini"
      GOOGLE_GENAI_USE_VERTEXAI = "true"
      GOOGLE_CLOUD_LOCATION     = var.vertex_location
      FERRET_GEMINI_MODEL       = var.gemini_model
      FERRET_GEMINI_LITE_MODEL  = var.gemini_lite_model
      FERRET_GEMINI_TIMEOUT_MS  = tostring(var.gemini_timeout_ms)
    }
    log_warehouse = {
      FERRET_LOG_WAREHOUSE = "bigquery"
      # Project that owns the log dataset; query jobs run (and are billed) in GOOGLE_CLOUD_PROJECT.
      FERRET_BIGQUERY_PROJECT          = local.log_dataset_project
      FERRET_BIGQUERY_DATASET          = var.log_dataset_id
      FERRET_BIGQUERY_MAX_BYTES_BILLED = tostring(var.bigquery_max_bytes_billed)
    }
    intel = {
      # The step executor only calls OTX when this is true (and OTX_API_KEY is mounted).
      FERRET_OTX_ENABLED = tostring(var.enable_otx)
    }
    slack = {
      FERRET_SLACK_CHANNEL = var.slack_channel_id
      # A claimed Slack post older than the notifier's timeout was killed with its process.
      FERRET_SLACK_CLAIM_STALE_SECONDS = tostring(var.functions.notifier.timeout_seconds + 60)
    }
    governor = {
      # Storm governor (functions/src/domain/governor.ts, docs/reliability.md): limits, queue, grouping.
      FERRET_GOVERNOR_MAX_CONCURRENT       = tostring(var.governor_max_concurrent)
      FERRET_GOVERNOR_PER_HOUR             = tostring(var.governor_per_hour)
      FERRET_GOVERNOR_TOKENS_PER_HOUR      = tostring(var.governor_tokens_per_hour)
      FERRET_GOVERNOR_TOKENS_PER_DAY       = tostring(var.governor_tokens_per_day)
      FERRET_GOVERNOR_GROUP_WINDOW_MINUTES = tostring(var.governor_group_window_minutes)
    }
    # Who may act on verdicts. An empty list is left unset (function_env drops empty values):
    # ferret's configuration refuses a list variable holding no entry.
    analysts = {
      FERRET_SLACK_ALLOWED_USERS       = join(",", var.slack_allowed_users)
      FERRET_SLACK_ALLOWED_USER_GROUPS = join(",", var.slack_allowed_user_groups)
    }
    # Who may Approve / Deny an acting call, and how long the workflow waits (approvals.tf).
    approvals = {
      FERRET_SLACK_APPROVERS          = join(",", var.slack_approvers)
      FERRET_APPROVAL_TIMEOUT_SECONDS = tostring(var.approval_timeout_seconds)
    }
    # The card offers the SCC buttons and the worker writes to SCC only when both agree.
    scc_writeback = {
      FERRET_SCC_WRITEBACK              = tostring(var.enable_scc_writeback)
      FERRET_SCC_ANALYST_MUTE_AND_STATE = tostring(var.enable_scc_writeback && var.scc_analyst_mute_and_state)
    }
    # Response actions the registry offers (terraform/response-actions.tf); empty is left unset.
    actions = {
      FERRET_ACTIONS_ENABLED         = join(",", var.response_actions)
      FERRET_ACTIONS_DENY_EGRESS_TAG = var.deny_egress_tag
    }
    workflow = {
      # A literal, not google_workflows_workflow.investigate.name: the workflow depends on the
      # functions' URLs, so the functions cannot depend on the workflow.
      FERRET_WORKFLOW_NAME     = local.workflow_name
      FERRET_WORKFLOW_LOCATION = var.region
    }
    # Spans to Cloud Trace through the Telemetry API and metrics to Cloud Monitoring
    # (docs/decisions/0055); each function's account holds roles/telemetry.tracesWriter and
    # roles/monitoring.metricWriter (iam.tf).
    telemetry = {
      FERRET_TELEMETRY_EXPORTER = "google-cloud"
      FERRET_TRACE_SAMPLE_RATIO = tostring(var.trace_sample_ratio)
    }
    # The web console (terraform/console.tf): its user is the email in IAP's signed header,
    # verified against the console's backend service ("" without enable_console, so unset).
    console = {
      FERRET_CONSOLE_AUTH         = "iap"
      FERRET_CONSOLE_IAP_AUDIENCE = local.console_iap_audience
      # Links from an investigation to its Slack thread.
      FERRET_SLACK_CHANNEL = var.slack_channel_id
    }
  }

  function_env_groups = {
    ingest = ["common", "workflow", "governor", "telemetry"]
    # The planner and reflector see the same tool registry as the step executor (it is
    # built from these settings), so plans can name the log and intel tools. They never
    # query: table descriptions fall back to ferret's built-in log schema without BigQuery access.
    planner      = ["common", "model", "log_warehouse", "intel", "actions", "telemetry"]
    stepExecutor = ["common", "model", "log_warehouse", "intel", "actions", "telemetry"]
    reflector    = ["common", "model", "log_warehouse", "intel", "actions", "telemetry"]
    concluder    = ["common", "model", "telemetry"]
    compressor   = ["common", "model", "telemetry"]
    # Runs approved calls through the same tool registry as the step executor (terraform/approvals.tf).
    responder          = ["common", "model", "log_warehouse", "intel", "actions", "telemetry"]
    memoryIntrospector = ["common", "model", "telemetry"]
    notifier           = ["common", "slack", "scc_writeback", "approvals", "telemetry"]
    # Sweeps (the deadline is the agent's default) and launches what the governor's queue releases.
    sweep       = ["common", "workflow", "governor", "telemetry"]
    slackEvents = ["common", "slack", "analysts", "approvals", "telemetry"]
    # Edits the thread root (channel, post claims) and writes to SCC; decides approvals; starts
    # the workflow for Re-investigate; answers questions in the thread with the model.
    analystActions = ["common", "slack", "analysts", "scc_writeback", "approvals", "workflow", "model", "telemetry"]
    # The web console (terraform/console.tf, only with enable_console; not a role in ROLES):
    # reads Firestore, shows the governor's limits on the queue page, links to Slack threads.
    console = ["common", "governor", "console"]
  }

  # Environment variable name => key in local.secrets, per function.
  secret_env = {
    ingest = {}
    # Every function with the intel group builds the OTX adapter, which needs the key.
    planner            = { OTX_API_KEY = "otx-api-key" }
    stepExecutor       = { OTX_API_KEY = "otx-api-key" }
    reflector          = { OTX_API_KEY = "otx-api-key" }
    concluder          = {}
    compressor         = {}
    responder          = { OTX_API_KEY = "otx-api-key" }
    memoryIntrospector = {}
    notifier           = { SLACK_BOT_TOKEN = "slack-bot-token" }
    sweep              = {}
    # The bot token opens the Dispute modal and lists user-group members.
    slackEvents    = { SLACK_SIGNING_SECRET = "slack-signing-secret", SLACK_BOT_TOKEN = "slack-bot-token" }
    analystActions = { SLACK_BOT_TOKEN = "slack-bot-token" }
    # No secret: the console verifies IAP's signature with Google's public keys.
    console = {}
  }

  function_env = {
    for key, groups in local.function_env_groups : key => {
      for name, value in merge([for group in groups : local.env_groups[group]]...) : name => value if value != ""
    }
  }
}
