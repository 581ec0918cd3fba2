# The investigate workflow. templates/investigate.yaml.tftpl is generated from
# workflows/investigate.yaml by scripts/render-workflow-template.ts (Workflows' own ${...}
# expressions escaped as $${...}); test/unit/terraform checks it renders back byte for byte.
# The YAML reaches the HTTP functions through sys.get_env("FERRET_*_URL") and calls them with
# `auth: {type: OIDC}` as the workflow service account. FERRET_*_TIMEOUT_SECONDS hand it each
# function's own timeout: every call waits 30 s longer, so the function gives up first and a
# retry never overlaps a running attempt.

resource "google_workflows_workflow" "investigate" {
  project     = var.project_id
  name        = local.workflow_name
  region      = var.region
  description = "ferret: plan, execute, reflect and conclude on one SCC finding."

  service_account     = google_service_account.sa["workflow"].id
  call_log_level      = var.workflow_call_log_level
  deletion_protection = var.deletion_protection

  source_contents = templatefile("${path.module}/templates/investigate.yaml.tftpl", {})

  user_env_vars = {
    FERRET_PLANNER_URL       = google_cloudfunctions2_function.function["planner"].service_config[0].uri
    FERRET_STEP_EXECUTOR_URL = google_cloudfunctions2_function.function["stepExecutor"].service_config[0].uri
    FERRET_REFLECTOR_URL     = google_cloudfunctions2_function.function["reflector"].service_config[0].uri
    FERRET_CONCLUDER_URL     = google_cloudfunctions2_function.function["concluder"].service_config[0].uri
    FERRET_COMPRESSOR_URL    = google_cloudfunctions2_function.function["compressor"].service_config[0].uri
    FERRET_RESPONDER_URL     = google_cloudfunctions2_function.function["responder"].service_config[0].uri

    FERRET_PLANNER_TIMEOUT_SECONDS       = tostring(var.functions.planner.timeout_seconds)
    FERRET_STEP_EXECUTOR_TIMEOUT_SECONDS = tostring(var.functions.stepExecutor.timeout_seconds)
    FERRET_REFLECTOR_TIMEOUT_SECONDS     = tostring(var.functions.reflector.timeout_seconds)
    FERRET_CONCLUDER_TIMEOUT_SECONDS     = tostring(var.functions.concluder.timeout_seconds)
    FERRET_COMPRESSOR_TIMEOUT_SECONDS    = tostring(var.functions.compressor.timeout_seconds)
    FERRET_RESPONDER_TIMEOUT_SECONDS     = tostring(var.functions.responder.timeout_seconds)

    # How long a held acting call waits on a person (approvals.tf).
    FERRET_APPROVAL_TIMEOUT_SECONDS = tostring(var.approval_timeout_seconds)
  }

  depends_on = [
    google_project_service.api,
    google_project_iam_member.grant,
    google_cloud_run_v2_service_iam_member.grant,
  ]
}
