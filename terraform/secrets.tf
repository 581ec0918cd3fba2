# Secret Manager secrets. Terraform creates the containers only; the values are added with
# `gcloud secrets versions add` (docs/deploy.md) so they never land in Terraform state.
# A function that mounts a secret fails to deploy until the secret has a version.

locals {
  # Key (used in local.grants and local.secret_env) => what the secret holds.
  secrets = {
    "slack-bot-token"      = "Slack bot token (xoxb-...) the notifier posts with and the analyst functions open modals and edit threads with."
    "slack-signing-secret" = "Slack app signing secret; slackEvents refuses every request it cannot verify with it."
    "otx-api-key"          = "AlienVault OTX API key for the step executor's threat-intel tool."
  }

  # Secrets actually injected into functions; the OTX key only when enable_otx is true.
  enabled_secrets = concat(["slack-bot-token", "slack-signing-secret"], var.enable_otx ? ["otx-api-key"] : [])
}

resource "google_secret_manager_secret" "secret" {
  for_each = local.secrets

  project   = var.project_id
  secret_id = "ferret-${each.key}"

  annotations = {
    purpose = each.value
  }

  replication {
    auto {}
  }

  depends_on = [google_project_service.api]
}
