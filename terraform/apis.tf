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
    "firestore.googleapis.com",      # investigations, memories
    "iam.googleapis.com",
    "iamcredentials.googleapis.com", # OIDC tokens for push and workflow calls
    "logging.googleapis.com",
    "pubsub.googleapis.com",
    "run.googleapis.com", # gen2 functions run on Cloud Run
    "secretmanager.googleapis.com",
    "securitycenter.googleapis.com",     # SCC notification config (this project is the quota project)
    "storage.googleapis.com",            # source archive bucket
    "workflowexecutions.googleapis.com", # ingest starts executions
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

# Only with enable_console (terraform/console.tf). Kept out of local.apis, which is what every
# deployment needs and what `ferret doctor` checks.
locals {
  console_apis = [
    "compute.googleapis.com", # the console's load balancer, serverless NEG and certificate
    "iap.googleapis.com",     # Identity-Aware Proxy on the console's backend service
  ]
}

resource "google_project_service" "console_api" {
  for_each = var.enable_console ? toset(local.console_apis) : toset([])

  project = var.project_id
  service = each.key

  disable_on_destroy         = false
  disable_dependent_services = false
}
