# APIs ferret needs in its project. serviceusage and cloudresourcemanager must already be
# enabled to manage the rest (docs/deploy.md, step 2).
locals {
  apis = [
    "aiplatform.googleapis.com",       # Gemini and embeddings on Vertex AI
    "artifactregistry.googleapis.com", # function images (gcf-artifacts)
    "bigquery.googleapis.com",         # log analysis
    "cloudbuild.googleapis.com",       # function builds
    "cloudfunctions.googleapis.com",   # Cloud Functions gen2
    "cloudresourcemanager.googleapis.com",
    "cloudscheduler.googleapis.com", # the sweep function's schedule
    "cloudtrace.googleapis.com",     # trace storage and the console's reads (0055, 0056)
    "firestore.googleapis.com",      # investigations, memories
    "iam.googleapis.com",
    "iamcredentials.googleapis.com", # OIDC tokens for push and workflow calls
    "logging.googleapis.com",
    "monitoring.googleapis.com", # metrics and the dashboard (monitoring.tf)
    "pubsub.googleapis.com",
    "run.googleapis.com", # gen2 functions run on Cloud Run
    "secretmanager.googleapis.com",
    "securitycenter.googleapis.com",     # SCC notification config (this project is the quota project)
    "storage.googleapis.com",            # source archive bucket
    "telemetry.googleapis.com",          # spans over OTLP (docs/decisions/0055)
    "workflowexecutions.googleapis.com", # the sweep starts executions
    "workflows.googleapis.com",
  ]
}

resource "google_project_service" "api" {
  for_each = toset(local.apis)

  project = var.project_id
  service = each.key

  # Leave APIs on when ferret is destroyed: other workloads in the project may use them.
  disable_on_destroy         = false
  disable_dependent_services = false
}

# APIs only a feature needs, each with the condition that turns it on. Kept out of local.apis,
# which is what every deployment needs and what `ferret doctor` checks. The deny-egress action
# calls Compute Engine (instances.get/setTags) as the responder's service account, so its
# requests count against, and need the API enabled in, the ferret project.
locals {
  feature_apis = {
    # The console's load balancer, serverless NEG and certificate; the deny-egress action.
    "compute.googleapis.com" = var.enable_console || contains(var.response_actions, "add_deny_egress_tag")
    # Identity-Aware Proxy on the console's backend service.
    "iap.googleapis.com" = var.enable_console
  }
}

resource "google_project_service" "feature_api" {
  for_each = toset([for api, needed in local.feature_apis : api if needed])

  project = var.project_id
  service = each.key

  disable_on_destroy         = false
  disable_dependent_services = false
}
