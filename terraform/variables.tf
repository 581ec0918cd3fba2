# -----------------------------------------------------------------------------
# Where ferret runs
# -----------------------------------------------------------------------------

variable "project_id" {
  description = "ID of the Google Cloud project that hosts ferret (functions, workflow, Pub/Sub, Firestore, secrets). A dedicated project is recommended."
  type        = string

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{4,28}[a-z0-9]$", var.project_id))
    error_message = "project_id must be a Google Cloud project ID (6-30 characters: lowercase letters, digits, hyphens)."
  }
}

variable "region" {
  description = "Region for the Cloud Functions, the workflow, the source bucket and Artifact Registry images."
  type        = string
  default     = "us-central1"
}

variable "labels" {
  description = "Labels added to every resource that supports them (provider default_labels)."
  type        = map(string)
  default = {
    app = "ferret"
  }
}

variable "deletion_protection" {
  description = "Protect the workflow and the Firestore database from `terraform destroy`. Set to false and apply before tearing down."
  type        = bool
  default     = true
}

# -----------------------------------------------------------------------------
# Security Command Center
# -----------------------------------------------------------------------------

variable "organization_id" {
  description = "Numeric ID of the organization whose Security Command Center findings ferret investigates."
  type        = string

  validation {
    condition     = can(regex("^[0-9]+$", var.organization_id))
    error_message = "organization_id must be the numeric organization ID (gcloud organizations list)."
  }
}

variable "enable_scc_notification" {
  description = "Create the organization-level SCC notification config here. Set to false when an organization admin creates it separately (docs/deploy.md shows the gcloud commands)."
  type        = bool
  default     = true
}

variable "scc_notification_config_id" {
  description = "ID of the SCC v2 organization notification config (unique within the organization)."
  type        = string
  default     = "ferret-findings"

  validation {
    condition     = can(regex("^[a-zA-Z0-9_-]{1,128}$", var.scc_notification_config_id))
    error_message = "scc_notification_config_id may contain letters, digits, hyphens and underscores (max 128)."
  }
}

variable "scc_findings_filter" {
  description = "SCC notification filter: which finding create/update events are published to scc-findings. In SCC filters OR binds tighter than AND; keep the parentheses."
  type        = string
  default     = "state=\"ACTIVE\" AND NOT mute=\"MUTED\" AND (severity=\"HIGH\" OR severity=\"CRITICAL\")"

  validation {
    condition     = length(trimspace(var.scc_findings_filter)) > 0
    error_message = "scc_findings_filter must not be empty (an empty filter would stream every finding in the organization)."
  }
}

# -----------------------------------------------------------------------------
# Firestore
# -----------------------------------------------------------------------------

variable "firestore_database" {
  description = "ID of the Firestore (native mode) database ferret creates and uses (FERRET_FIRESTORE_DATABASE)."
  type        = string
  default     = "ferret"

  validation {
    condition     = var.firestore_database == "(default)" || can(regex("^[a-z][a-z0-9-]{2,61}[a-z0-9]$", var.firestore_database))
    error_message = "firestore_database must be \"(default)\" or 4-63 characters of lowercase letters, digits and hyphens."
  }
}

variable "firestore_location" {
  description = "Firestore location (multi-region such as nam5/eur3, or a region). Cannot be changed after creation."
  type        = string
  default     = "nam5"
}

# -----------------------------------------------------------------------------
# Model (Vertex AI Gemini)
# -----------------------------------------------------------------------------

variable "vertex_location" {
  description = "Vertex AI location used for Gemini calls and embeddings (GOOGLE_CLOUD_LOCATION). Gemini 3.x models are served from the global endpoint."
  type        = string
  default     = "global"
}

variable "gemini_model" {
  description = "Gemini model ID used by the agent's main roles (FERRET_GEMINI_MODEL): a listed id or a -latest alias ferret knows (functions/src/model/catalog.ts); see docs/decisions/0011 and 0047."
  type        = string
  default     = "gemini-3.8-flash"
}

variable "gemini_lite_model" {
  description = "Smaller Gemini model for the roles configured as \"lite\": executor, compressor, introspector (FERRET_GEMINI_LITE_MODEL)."
  type        = string
  default     = "gemini-3.1-flash-lite"
}

variable "gemini_timeout_ms" {
  description = "Timeout of one Gemini HTTP call in milliseconds (FERRET_GEMINI_TIMEOUT_MS)."
  type        = number
  default     = 90000
}

# -----------------------------------------------------------------------------
# Log analysis (BigQuery log sink)
# -----------------------------------------------------------------------------

variable "log_dataset_project_id" {
  description = "Project that owns the BigQuery dataset the Cloud Logging sink writes to. Null means project_id. Queries are billed to project_id."
  type        = string
  default     = null
}

variable "log_dataset_id" {
  description = "BigQuery dataset written by the Cloud Logging sink (tables such as cloudaudit_googleapis_com_activity). The step executor gets read access to this dataset only."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9_]+$", var.log_dataset_id)) && length(var.log_dataset_id) <= 1024
    error_message = "log_dataset_id must be a BigQuery dataset ID (letters, digits, underscores; at most 1024)."
  }
}

variable "bigquery_max_bytes_billed" {
  description = "Upper bound on bytes billed per log-analysis query (FERRET_BIGQUERY_MAX_BYTES_BILLED). Default 10 GiB."
  type        = number
  default     = 10737418240

  validation {
    condition     = var.bigquery_max_bytes_billed >= 10485760 && floor(var.bigquery_max_bytes_billed) == var.bigquery_max_bytes_billed
    error_message = "bigquery_max_bytes_billed must be a whole number of bytes, at least 10 MiB."
  }
}

# -----------------------------------------------------------------------------
# Slack and threat intel
# -----------------------------------------------------------------------------

variable "slack_channel_id" {
  description = "ID of the Slack channel the notifier posts investigation threads to (FERRET_SLACK_CHANNEL), e.g. C0123456789. Invite the bot to it."
  type        = string

  validation {
    condition     = can(regex("^[CG][A-Z0-9]{6,}$", var.slack_channel_id))
    error_message = "slack_channel_id must be a Slack channel ID (starts with C or G), not a channel name."
  }
}

variable "slack_allowed_users" {
  description = "Slack user IDs (U... or W...) whose clicks on verdict cards are acted on (FERRET_SLACK_ALLOWED_USERS). With slack_allowed_user_groups empty too, nobody may act."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for id in var.slack_allowed_users : can(regex("^[UW][A-Z0-9]{2,}$", id))])
    error_message = "slack_allowed_users holds Slack user IDs (U... or W...), not names."
  }
}

variable "slack_allowed_user_groups" {
  description = "Slack user group IDs (S...) whose members may act on verdict cards (FERRET_SLACK_ALLOWED_USER_GROUPS); the bot token needs usergroups:read."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for id in var.slack_allowed_user_groups : can(regex("^S[A-Z0-9]{2,}$", id))])
    error_message = "slack_allowed_user_groups holds Slack user group IDs (S...), not handles."
  }
}

variable "slack_events_public" {
  description = "Let Slack reach the slackEvents function: a public (all principals) run.invoker binding on that one function (Slack presents no Google identity; the function checks Slack's signature). Set false where domain-restricted sharing (iam.allowedPolicyMemberDomains) forbids public members, and front the function otherwise (docs/decisions/0018-public-slack-endpoint.md)."
  type        = bool
  default     = true
}

variable "enable_otx" {
  description = "Look up IOCs in AlienVault OTX: sets FERRET_OTX_ENABLED and mounts the secret ferret-otx-api-key as OTX_API_KEY in the planner, step executor and reflector (all three build the tool registry). The secret must have a version before apply when true."
  type        = bool
  default     = false
}

# -----------------------------------------------------------------------------
# Functions, Pub/Sub and workflow tuning
# -----------------------------------------------------------------------------

variable "functions" {
  description = <<-EOT
    Per-function runtime settings, keyed by entry point. Set only what you change, e.g.
    { stepExecutor = { timeout_seconds = 1200, max_instances = 60 } }.
    memory: Cloud Functions gen2 memory (e.g. 512Mi, 1Gi); cpu: vCPUs as a string, null = derived from memory;
    timeout_seconds: at most 1770 for the functions the workflow calls (it waits 30 s longer, and no
    Workflows HTTP call may exceed 1800 s), at most 600 for Pub/Sub-pushed functions (the push
    acknowledgement deadline); min_instances/max_instances: instance bounds. A function the workflow
    calls needs max_instances >= governor_max_concurrent × its fan-out (terraform/workflow_fanout.tf,
    derived from workflows/investigate.yaml: 4 for stepExecutor, compressor and responder, 1 for
    planner, reflector and concluder); apply refuses less.
  EOT
  type = object({
    ingest = optional(object({
      memory          = optional(string, "512Mi")
      cpu             = optional(string)
      timeout_seconds = optional(number, 120)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 10)
    }), {})
    planner = optional(object({
      memory          = optional(string, "1Gi")
      cpu             = optional(string)
      timeout_seconds = optional(number, 300)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 10)
    }), {})
    stepExecutor = optional(object({
      memory          = optional(string, "1Gi")
      cpu             = optional(string)
      timeout_seconds = optional(number, 900)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 40)
    }), {})
    reflector = optional(object({
      memory          = optional(string, "512Mi")
      cpu             = optional(string)
      timeout_seconds = optional(number, 300)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 10)
    }), {})
    concluder = optional(object({
      memory          = optional(string, "512Mi")
      cpu             = optional(string)
      timeout_seconds = optional(number, 300)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 10)
    }), {})
    compressor = optional(object({
      memory          = optional(string, "512Mi")
      cpu             = optional(string)
      timeout_seconds = optional(number, 300)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 40)
    }), {})
    responder = optional(object({
      memory          = optional(string, "512Mi")
      cpu             = optional(string)
      timeout_seconds = optional(number, 300)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 40)
    }), {})
    memoryIntrospector = optional(object({
      memory          = optional(string, "512Mi")
      cpu             = optional(string)
      timeout_seconds = optional(number, 300)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 5)
    }), {})
    notifier = optional(object({
      memory          = optional(string, "512Mi")
      cpu             = optional(string)
      timeout_seconds = optional(number, 60)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 5)
    }), {})
    # Scheduled sweeps and the storm governor's drains; each run is short. One instance: it is
    # the governor's only drainer, which coalesces drain requests into at most one drain (one
    # write of the governor's state document) a second (decision 0039). More instances would
    # drain in parallel and write that document faster than Firestore sustains.
    # Its one instance takes many pushed requests at once (each waits for the next coalesced
    # drain), which Cloud Run allows only with a whole CPU.
    sweep = optional(object({
      memory          = optional(string, "512Mi")
      cpu             = optional(string, "1")
      timeout_seconds = optional(number, 300)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 1)
      concurrency     = optional(number, 80)
    }), {})
    # Slack gives up on an answer after 3 s; the endpoint only checks and publishes. A cold start
    # is the slow part: min_instances = 1 keeps one warm (billed while idle).
    slackEvents = optional(object({
      memory          = optional(string, "512Mi")
      cpu             = optional(string)
      timeout_seconds = optional(number, 30)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 5)
    }), {})
    analystActions = optional(object({
      memory          = optional(string, "512Mi")
      cpu             = optional(string)
      timeout_seconds = optional(number, 120)
      min_instances   = optional(number, 0)
      max_instances   = optional(number, 5)
    }), {})
  })
  default = {}

  validation {
    condition     = alltrue([for name, f in var.functions : f.timeout_seconds >= 1 && f.timeout_seconds <= 1800])
    error_message = "Every timeout_seconds must be between 1 and 1800 (the Workflows HTTP call limit)."
  }

  validation {
    condition     = alltrue([for name in ["planner", "stepExecutor", "reflector", "concluder", "compressor", "responder"] : var.functions[name].timeout_seconds <= 1770])
    error_message = "The workflow-called functions (planner, stepExecutor, reflector, concluder, compressor, responder) need timeout_seconds <= 1770: the workflow waits 30 s longer than the function may run, and no Workflows HTTP call may exceed 1800 s."
  }

  validation {
    condition     = alltrue([for name in ["ingest", "memoryIntrospector", "notifier", "analystActions", "sweep"] : var.functions[name].timeout_seconds <= 600])
    error_message = "ingest, memoryIntrospector, notifier, analystActions and sweep are pushed by Pub/Sub: their timeout_seconds must be at most 600 (the maximum acknowledgement deadline)."
  }

  validation {
    condition     = alltrue([for name, f in var.functions : f.max_instances >= 1 && f.min_instances >= 0 && f.min_instances <= f.max_instances])
    error_message = "Every function needs max_instances >= 1 and 0 <= min_instances <= max_instances."
  }
}

variable "pubsub_max_delivery_attempts" {
  description = "Deliveries of a message to a push-triggered function before it is moved to the topic's dead-letter topic. Only retryable failures use them (malformed messages are dead-lettered by the code at once); 12 with the 10-600 s backoff keeps retrying for about an hour, so an outage of Firestore, Workflows or Slack shorter than that loses no finding and no Slack reply."
  type        = number
  default     = 12

  validation {
    condition     = var.pubsub_max_delivery_attempts >= 5 && var.pubsub_max_delivery_attempts <= 100
    error_message = "Pub/Sub accepts 5 to 100 delivery attempts."
  }
}

variable "sweep_schedule" {
  description = "Cron schedule (UTC) of Cloud Scheduler's requests to the sweep function, which marks investigations whose workflow died as needs_human and frees governor slots whose finish was never announced. Events of a sweep are re-sent for 30 minutes, so keep the period at most 15 minutes."
  type        = string
  default     = "*/15 * * * *"
  nullable    = false
}

# -----------------------------------------------------------------------------
# Storm governor (docs/reliability.md, docs/decisions/0021)
# -----------------------------------------------------------------------------

variable "governor_max_concurrent" {
  description = "Investigations running at once, at most; the rest wait in the queue (FERRET_GOVERNOR_MAX_CONCURRENT)."
  type        = number
  default     = 10

  validation {
    condition     = var.governor_max_concurrent >= 1 && var.governor_max_concurrent <= 1000 && floor(var.governor_max_concurrent) == var.governor_max_concurrent
    error_message = "governor_max_concurrent must be a whole number from 1 to 1000."
  }
}

variable "trace_sample_ratio" {
  description = "Share of investigations whose trace goes to Cloud Trace, each kept or dropped whole (FERRET_TRACE_SAMPLE_RATIO; docs/decisions/0055)."
  type        = number
  default     = 1

  validation {
    condition     = var.trace_sample_ratio >= 0 && var.trace_sample_ratio <= 1
    error_message = "trace_sample_ratio must be from 0 to 1."
  }
}

variable "governor_per_hour" {
  description = "Investigations started in any rolling hour, at most (FERRET_GOVERNOR_PER_HOUR)."
  type        = number
  default     = 30

  validation {
    condition     = var.governor_per_hour >= 1 && var.governor_per_hour <= 100000 && floor(var.governor_per_hour) == var.governor_per_hour
    error_message = "governor_per_hour must be a whole number from 1 to 100000."
  }
}

variable "governor_tokens_per_hour" {
  description = "Model tokens of investigations finished in the rolling hour before new ones wait; 0 = no limit (FERRET_GOVERNOR_TOKENS_PER_HOUR)."
  type        = number
  default     = 4000000

  validation {
    condition     = var.governor_tokens_per_hour >= 0 && floor(var.governor_tokens_per_hour) == var.governor_tokens_per_hour
    error_message = "governor_tokens_per_hour must be a whole number, 0 for no limit."
  }
}

variable "governor_tokens_per_day" {
  description = "Model tokens of investigations finished in the rolling day before new ones wait; 0 = no limit (FERRET_GOVERNOR_TOKENS_PER_DAY)."
  type        = number
  default     = 40000000

  validation {
    condition     = var.governor_tokens_per_day >= 0 && floor(var.governor_tokens_per_day) == var.governor_tokens_per_day
    error_message = "governor_tokens_per_day must be a whole number, 0 for no limit."
  }
}

variable "governor_group_window_minutes" {
  description = "A finding with the same category and principal or resource as an unfinished investigation opened this recently joins it as a related finding; 0 turns grouping off (FERRET_GOVERNOR_GROUP_WINDOW_MINUTES)."
  type        = number
  default     = 30

  validation {
    condition     = var.governor_group_window_minutes >= 0 && var.governor_group_window_minutes <= 1440 && floor(var.governor_group_window_minutes) == var.governor_group_window_minutes
    error_message = "governor_group_window_minutes must be a whole number of minutes from 0 to 1440."
  }
}

variable "workflow_call_log_level" {
  description = "Workflows call logging level for the investigate workflow."
  type        = string
  default     = "LOG_ERRORS_ONLY"

  validation {
    condition     = contains(["LOG_ALL_CALLS", "LOG_ERRORS_ONLY", "LOG_NONE"], var.workflow_call_log_level)
    error_message = "workflow_call_log_level must be LOG_ALL_CALLS, LOG_ERRORS_ONLY or LOG_NONE."
  }
}

# -----------------------------------------------------------------------------
# SCC write-back (terraform/scc-writeback.tf)
# -----------------------------------------------------------------------------

variable "enable_scc_writeback" {
  description = "Write ferret's verdict and the analyst's decision to SCC findings as security marks (FERRET_SCC_WRITEBACK): creates the least-privilege custom role (terraform/scc-writeback.tf) and grants it to the analystActions identity at organization scope."
  type        = bool
  default     = false
}

variable "scc_analyst_mute_and_state" {
  description = "Offer Mute in SCC and Mark inactive in SCC on the verdict card (FERRET_SCC_ANALYST_MUTE_AND_STATE); only with enable_scc_writeback."
  type        = bool
  default     = false
}

variable "scc_writeback_role_id" {
  description = "Role id of the organization custom role for SCC write-back."
  type        = string
  default     = "ferretSccWriteback"

  validation {
    condition     = can(regex("^[a-zA-Z0-9_.]{3,64}$", var.scc_writeback_role_id))
    error_message = "scc_writeback_role_id: 3-64 letters, digits, underscores or dots."
  }
}
