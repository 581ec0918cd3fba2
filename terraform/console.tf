# The web console (docs/console.md, docs/decisions/0033-web-console.md): one more gen2 function,
# built from the same source archive as the others (entry point `console`), reachable only
# through a global external Application Load Balancer with Identity-Aware Proxy on its backend
# service, the way Google documents IAP for serverless backends ("Enabling IAP for Cloud Run"):
#
#   browser ──HTTPS──► global address + forwarding rule :443 ──► target HTTPS proxy
#     (Google-managed certificate for console_domain) ──► URL map ──► backend service (IAP on)
#     ──► serverless NEG ──► the function's Cloud Run service
#
# Three locks, each enough to keep a stranger out:
#   1. Ingress ALLOW_INTERNAL_AND_GCLB: the run.app URL refuses the internet; only the load
#      balancer (and the project's own networks) reach the service.
#   2. Cloud Run IAM: the only invoker is IAP's service agent; there is no public member.
#   3. IAP admits only console_members (roles/iap.httpsResourceAccessor on the backend service)
#      and signs every request it lets through; the function verifies that signature against
#      this backend service's audience (functions/src/console/identity.ts), so a request that
#      reached it some other way is refused with 401.
#
# The console runs as its own service account, read-mostly: it reads Firestore, publishes
# Dispute / Re-investigate to analyst-actions (the analystActions worker writes, as for a
# Slack click), and deletes a memory itself (the memory store's delete, as `ferret memories
# delete`). Nothing here exists while enable_console is false.

variable "enable_console" {
  description = "Deploy the web console (docs/console.md) behind Identity-Aware Proxy: the ferret-console function, its own service account, a global external Application Load Balancer with a Google-managed certificate for console_domain, and IAP admitting console_members. Enables compute.googleapis.com and iap.googleapis.com."
  type        = bool
  default     = false
  nullable    = false
}

variable "console_domain" {
  description = "Host name the console is served at (e.g. ferret.example.com), with enable_console. Point its DNS A record at the console_ip_address output: the managed certificate is provisioned only once the name resolves to the load balancer."
  type        = string
  default     = null

  validation {
    condition     = var.console_domain == null || can(regex("^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$", var.console_domain))
    error_message = "console_domain must be a lowercase DNS name such as ferret.example.com (no scheme, port or path)."
  }
}

variable "console_members" {
  description = "Who may open the console: IAM members granted roles/iap.httpsResourceAccessor on its backend service (user:, group:, serviceAccount: or domain: members). Public principals are refused. With IAP's Google-managed OAuth client, only identities of your organization can sign in."
  type        = list(string)
  default     = []
  nullable    = false

  validation {
    # An allowlist of member kinds: the public principals (all users, all authenticated users,
    # principalSet://goog/public:all) match none of them.
    condition     = alltrue([for m in var.console_members : can(regex("^(user|group|serviceAccount):[^@\\s:]+@[^@\\s]+\\.[^@\\s]+$|^domain:[a-z0-9]([a-z0-9.-]*[a-z0-9])?\\.[a-z]{2,63}$", m))])
    error_message = "console_members holds user:EMAIL, group:EMAIL, serviceAccount:EMAIL or domain:DOMAIN members only; public principals are refused."
  }
}

variable "console_role_id" {
  description = "Role id of the project custom role that lets the console delete a memory (a transaction and a document delete, nothing else)."
  type        = string
  default     = "ferretConsoleMemoryDelete"

  validation {
    condition     = can(regex("^[a-zA-Z0-9_.]{3,64}$", var.console_role_id))
    error_message = "console_role_id: 3-64 letters, digits, underscores or dots."
  }
}

locals {
  # The console's entry point (ff.http("console", …) in functions/src/index.ts) is not in
  # ROLES (functions/src/roles/index.ts): the local stack serves it with `ferret console`, not as a Pub/Sub or workflow
  # function. Its Cloud Run service has the function's name (gen2), which the NEG names below.
  console = {
    entry_point     = "console"
    name            = "ferret-console"
    description     = "ferret: the web console (investigations, memories, queue, report), behind Identity-Aware Proxy only."
    memory          = "512Mi"
    timeout_seconds = 60
    max_instances   = 3
  }

  # What IAP puts in the aud claim of the header it signs, for an app behind a backend service
  # ("Securing your app with signed headers"): /projects/PROJECT_NUMBER/global/backendServices/ID,
  # the backend service's numeric id (generated_id), not its name.
  console_iap_audience = var.enable_console ? "/projects/${data.google_project.ferret.number}/global/backendServices/${google_compute_backend_service.console[0].generated_id}" : ""
}

resource "google_service_account" "console" {
  count = var.enable_console ? 1 : 0

  project      = var.project_id
  account_id   = "ferret-console"
  display_name = "ferret web console"
  description  = "Managed by Terraform (ferret). Roles: terraform/console.tf."

  depends_on = [google_project_service.api]
}

# --- The console's own grants -------------------------------------------------------------

# Every page reads Firestore with gets, queries and count queries, never in a transaction:
# investigations and their results, reflections and events, Slack post claims, memories, the
# storm governor's documents (functions/src/console/ports.ts). Viewer: get and list, no write.
resource "google_project_iam_member" "console_reader" {
  count = var.enable_console ? 1 : 0

  project = var.project_id
  role    = "roles/datastore.viewer"
  member  = google_service_account.console[0].member
}

# Delete on the memories page is the memory store's delete (actions.ts deleteMemory): a
# transaction that reads the memory and deletes it. Firestore checks datastore.databases.get to
# begin or roll back a transaction and datastore.entities.delete for a delete in a commit
# ("Security for server client libraries"). No create or update: the console cannot write a
# document, only remove one.
resource "google_project_iam_custom_role" "console_memory_delete" {
  count = var.enable_console ? 1 : 0

  project     = var.project_id
  role_id     = var.console_role_id
  title       = "ferret console memory delete"
  description = "Begin a Firestore transaction and delete a document; nothing else (ferret web console)."
  permissions = ["datastore.databases.get", "datastore.entities.delete"]

  # Custom roles are created through the IAM API.
  depends_on = [google_project_service.api]
}

resource "google_project_iam_member" "console_memory_delete" {
  count = var.enable_console ? 1 : 0

  project = var.project_id
  role    = google_project_iam_custom_role.console_memory_delete[0].id
  member  = google_service_account.console[0].member
}

# Dispute and Re-investigate publish the Slack buttons' message to analyst-actions
# (actions.ts publish); the analystActions worker records them. Publish on that topic only.
resource "google_pubsub_topic_iam_member" "console_publisher" {
  count = var.enable_console ? 1 : 0

  project = var.project_id
  topic   = google_pubsub_topic.topic["analyst-actions"].name
  role    = "roles/pubsub.publisher"
  member  = google_service_account.console[0].member
}

# --- The function -------------------------------------------------------------------------

resource "google_cloudfunctions2_function" "console" {
  count = var.enable_console ? 1 : 0

  project     = var.project_id
  name        = local.console.name
  location    = var.region
  description = local.console.description

  build_config {
    runtime         = "nodejs22"
    entry_point     = local.console.entry_point
    service_account = google_service_account.sa["build"].id

    source {
      storage_source {
        bucket = google_storage_bucket.source.name
        object = google_storage_bucket_object.source.name
      }
    }
  }

  service_config {
    available_memory   = local.console.memory
    timeout_seconds    = local.console.timeout_seconds
    min_instance_count = 0
    max_instance_count = local.console.max_instances

    # The internet reaches it only through the load balancer below, never at its run.app URL.
    ingress_settings               = "ALLOW_INTERNAL_AND_GCLB"
    all_traffic_on_latest_revision = true

    service_account_email = google_service_account.console[0].email
    # FERRET_CONSOLE_IAP_AUDIENCE comes from the backend service's id, so the function is
    # created after the backend service; the NEG names the function's service by name
    # (local.console.name), not through this resource, which keeps the graph acyclic.
    environment_variables = local.function_env["console"]
  }

  lifecycle {
    # The serverless NEG reaches the function by its Cloud Run service's name; gen2 names that
    # service after the function. Fail the apply rather than leave the NEG pointing nowhere.
    postcondition {
      condition     = endswith(self.service_config[0].service, "/services/${local.console.name}") || self.service_config[0].service == local.console.name
      error_message = "The console's Cloud Run service is not named ${local.console.name}; the serverless NEG in terraform/console.tf would not reach it."
    }
  }

  depends_on = [
    google_project_service.api,
    google_project_service.feature_api,
    google_project_iam_member.console_reader,
    google_project_iam_member.console_memory_delete,
    google_pubsub_topic_iam_member.console_publisher,
    time_sleep.build_iam_propagation,
  ]
}

# IAP calls the service with an ID token of its service agent (X-Serverless-Authorization), so
# the agent is the one invoker ("Enabling IAP for Cloud Run": grant
# service-PROJECT_NUMBER@gcp-sa-iap.iam.gserviceaccount.com the Cloud Run Invoker role).
resource "google_project_service_identity" "iap" {
  count    = var.enable_console ? 1 : 0
  provider = google-beta

  project = var.project_id
  service = "iap.googleapis.com"

  depends_on = [google_project_service.feature_api]
}

resource "google_cloud_run_v2_service_iam_member" "console_iap_invoker" {
  count = var.enable_console ? 1 : 0

  project  = var.project_id
  location = var.region
  name     = google_cloudfunctions2_function.console[0].service_config[0].service
  role     = "roles/run.invoker"
  member   = google_project_service_identity.iap[0].member
}

# --- The load balancer and IAP --------------------------------------------------------------

resource "google_compute_region_network_endpoint_group" "console" {
  count = var.enable_console ? 1 : 0

  project               = var.project_id
  name                  = "ferret-console"
  region                = var.region
  network_endpoint_type = "SERVERLESS"

  # A Cloud Run NEG serves Cloud Run functions (formerly 2nd gen) too. The service is named, not
  # referenced: see the function's environment_variables.
  cloud_run {
    service = local.console.name
  }

  depends_on = [google_project_service.feature_api]
}

resource "google_compute_backend_service" "console" {
  count = var.enable_console ? 1 : 0

  project               = var.project_id
  name                  = "ferret-console"
  description           = "ferret web console, behind Identity-Aware Proxy."
  load_balancing_scheme = "EXTERNAL_MANAGED"

  # No health check and the default protocol, as in Google's serverless NEG guide: serverless
  # NEGs take no health check, and the load balancer reaches them over Google's network.
  backend {
    group = google_compute_region_network_endpoint_group.console[0].id
  }

  # Without an OAuth client, IAP uses the Google-managed one: users of the organization only.
  iap {
    enabled = true
  }

  # Who opened which page, from the load balancer's side.
  log_config {
    enable      = true
    sample_rate = 1
  }
}

# The only authoritative IAM resource in ferret's Terraform: who may pass IAP to the console is
# exactly console_members; a member added by hand on this backend service is removed on apply.
resource "google_iap_web_backend_service_iam_binding" "console_access" {
  count = var.enable_console ? 1 : 0

  project             = var.project_id
  web_backend_service = google_compute_backend_service.console[0].name
  role                = "roles/iap.httpsResourceAccessor"
  members             = var.console_members

  lifecycle {
    precondition {
      condition     = length(var.console_members) > 0
      error_message = "enable_console needs console_members: nobody could open the console."
    }
  }
}

resource "google_compute_url_map" "console" {
  count = var.enable_console ? 1 : 0

  project         = var.project_id
  name            = "ferret-console"
  description     = "Every path of the console's domain to its backend service."
  default_service = google_compute_backend_service.console[0].id
}

# The name carries a hash of the domain so that a new domain gets a new certificate before the
# proxy lets go of the old one (a certificate in use cannot be deleted).
resource "google_compute_managed_ssl_certificate" "console" {
  count = var.enable_console ? 1 : 0

  project = var.project_id
  name    = "ferret-console-${substr(sha256(var.console_domain), 0, 8)}"

  managed {
    domains = [var.console_domain]
  }

  lifecycle {
    create_before_destroy = true

    precondition {
      condition     = var.console_domain != null
      error_message = "enable_console needs console_domain, the host name the console is served at."
    }
  }

  depends_on = [google_project_service.feature_api]
}

resource "google_compute_ssl_policy" "console" {
  count = var.enable_console ? 1 : 0

  project         = var.project_id
  name            = "ferret-console"
  profile         = "MODERN"
  min_tls_version = "TLS_1_2"

  depends_on = [google_project_service.feature_api]
}

resource "google_compute_target_https_proxy" "console" {
  count = var.enable_console ? 1 : 0

  project          = var.project_id
  name             = "ferret-console"
  url_map          = google_compute_url_map.console[0].id
  ssl_certificates = [google_compute_managed_ssl_certificate.console[0].id]
  ssl_policy       = google_compute_ssl_policy.console[0].id
}

resource "google_compute_global_address" "console" {
  count = var.enable_console ? 1 : 0

  project = var.project_id
  name    = "ferret-console"

  depends_on = [google_project_service.feature_api]
}

# HTTPS only: there is no port-80 listener to redirect from.
resource "google_compute_global_forwarding_rule" "console" {
  count = var.enable_console ? 1 : 0

  project               = var.project_id
  name                  = "ferret-console"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  ip_protocol           = "TCP"
  port_range            = "443"
  ip_address            = google_compute_global_address.console[0].id
  target                = google_compute_target_https_proxy.console[0].id
}

output "console_url" {
  description = "Where the console is served (null without enable_console); it answers once DNS points console_domain at console_ip_address and the certificate is provisioned."
  value       = var.enable_console ? "https://${var.console_domain}/" : null
}

output "console_ip_address" {
  description = "The load balancer's address: the A record of console_domain (null without enable_console)."
  value       = var.enable_console ? google_compute_global_address.console[0].address : null
}

output "console_service_account" {
  description = "The console's own service account (null without enable_console)."
  value       = var.enable_console ? google_service_account.console[0].email : null
}
