# One source archive of the repository, one Cloud Function (gen2) per entry point. The web
# console is one more function from the same archive, in console.tf (only with enable_console).
# Cloud Build runs `npm ci` and the `gcp-build` script (tsc) on the archive; package.json `main`
# (dist/functions/src/index.js) exports every entry point.

locals {
  # Paths under the repository root left out of the archive (archive_file globs). The archive is
  # the working tree: deploy from a clean checkout. Local secrets and state are excluded anyway.
  source_excludes = [
    ".git", ".git/**",
    "node_modules", "node_modules/**",
    "dist", "dist/**",
    "test", "test/**",
    "examples", "examples/**",
    "bench", "bench/**",
    "terraform", "terraform/**",
    ".ferret", ".ferret/**",
    ".env", ".env.*", "**/.env", "**/.env.*",
    "*.tfvars", "*.log", "coverage", "coverage/**",
  ]
}

data "archive_file" "source" {
  type             = "zip"
  source_dir       = abspath("${path.module}/..")
  output_path      = "${path.module}/.build/ferret-source.zip"
  output_file_mode = "0644"
  excludes         = local.source_excludes
}

resource "google_storage_bucket" "source" {
  project  = var.project_id
  name     = "${var.project_id}-ferret-source"
  location = var.region

  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = true

  depends_on = [google_project_service.api]
}

resource "google_storage_bucket_object" "source" {
  # Content-addressed name: a new archive means a new object and a rebuild of every function.
  name   = "ferret-source-${data.archive_file.source.output_sha256}.zip"
  bucket = google_storage_bucket.source.name
  source = data.archive_file.source.output_path
}

resource "google_cloudfunctions2_function" "function" {
  for_each = local.functions

  project     = var.project_id
  name        = each.value.name
  location    = var.region
  description = each.value.description

  build_config {
    runtime         = "nodejs22"
    entry_point     = each.key
    service_account = google_service_account.sa["build"].id

    source {
      storage_source {
        bucket = google_storage_bucket.source.name
        object = google_storage_bucket_object.source.name
      }
    }
  }

  service_config {
    available_memory   = var.functions[each.key].memory
    available_cpu      = var.functions[each.key].cpu
    timeout_seconds    = var.functions[each.key].timeout_seconds
    min_instance_count = var.functions[each.key].min_instances
    max_instance_count = var.functions[each.key].max_instances
    # Only the sweep function declares it (the governor's one drainer, decision 0039); the others
    # keep Cloud Run's default of one request per instance.
    max_instance_request_concurrency = try(var.functions[each.key].concurrency, null)

    # Reachable only from inside the project (Pub/Sub push, Workflows); callers still need
    # roles/run.invoker on the service (iam.tf). The one public function (slackEvents) is reached
    # by Slack from the internet (docs/decisions/0018-public-slack-endpoint.md).
    ingress_settings               = each.value.public ? "ALLOW_ALL" : "ALLOW_INTERNAL_ONLY"
    all_traffic_on_latest_revision = true

    service_account_email = google_service_account.sa[each.key].email
    environment_variables = local.function_env[each.key]

    dynamic "secret_environment_variables" {
      for_each = { for env, secret in local.secret_env[each.key] : env => secret if contains(local.enabled_secrets, secret) }
      content {
        key        = secret_environment_variables.key
        project_id = var.project_id
        secret     = google_secret_manager_secret.secret[secret_environment_variables.value].secret_id
        version    = "latest"
      }
    }
  }

  # Capacity from the same numbers (issue 36): every running investigation may have
  # local.workflow_fanout[name] requests in flight to a function (the YAML's parallel limits,
  # terraform/workflow_fanout.tf), and the governor runs governor_max_concurrent of them. Below
  # that, Cloud Run queues a request about 10 s at the instance cap and then answers 429.
  lifecycle {
    precondition {
      condition     = var.functions[each.key].max_instances * coalesce(try(var.functions[each.key].concurrency, null), 1) >= var.governor_max_concurrent * lookup(local.workflow_fanout, each.key, 0)
      error_message = "functions.${each.key}.max_instances (times its concurrency) must be at least governor_max_concurrent × ${lookup(local.workflow_fanout, each.key, 0)} = ${var.governor_max_concurrent * lookup(local.workflow_fanout, each.key, 0)}: each running investigation may call ${each.key} that many times at once (workflows/investigate.yaml), and requests beyond the instance cap are refused with 429."
    }
  }

  depends_on = [
    google_project_service.api,
    google_project_iam_member.grant,
    google_storage_bucket_iam_member.grant,
    google_secret_manager_secret_iam_member.grant,
    time_sleep.build_iam_propagation,
  ]
}
