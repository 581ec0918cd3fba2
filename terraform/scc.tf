# SCC v2 organization notification config: streams matching finding events to scc-findings.
# Needs roles/securitycenter.notificationConfigEditor on the organization; set
# enable_scc_notification = false when an organization admin creates it instead (docs/deploy.md).

resource "google_scc_v2_organization_notification_config" "findings" {
  count = var.enable_scc_notification ? 1 : 0

  organization = var.organization_id
  config_id    = var.scc_notification_config_id
  location     = "global"
  description  = "ferret: findings to investigate (project ${var.project_id})"
  pubsub_topic = google_pubsub_topic.topic["scc-findings"].id

  streaming_config {
    filter = var.scc_findings_filter
  }

  depends_on = [google_project_service.api]
}

# SCC publishes as the service account the config reports
# (service-org-ORGANIZATION_ID@gcp-sa-scc-notification.iam.gserviceaccount.com).
resource "google_pubsub_topic_iam_member" "scc_publisher" {
  count = var.enable_scc_notification ? 1 : 0

  project = var.project_id
  topic   = google_pubsub_topic.topic["scc-findings"].name
  role    = "roles/pubsub.publisher"
  member  = "serviceAccount:${google_scc_v2_organization_notification_config.findings[0].service_account}"
}
