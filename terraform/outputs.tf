output "function_urls" {
  description = "Internal-only URL of each function, keyed by entry point."
  value       = { for key, fn in google_cloudfunctions2_function.function : key => fn.service_config[0].uri }
}

output "workflow" {
  description = "Resource name of the investigate workflow (FERRET_WORKFLOW_NAME / FERRET_WORKFLOW_LOCATION in the sweep function)."
  value       = google_workflows_workflow.investigate.id
}

output "topics" {
  description = "Pub/Sub topics the code publishes to and consumes."
  value       = { for name, topic in google_pubsub_topic.topic : name => topic.id }
}

output "dead_letter_subscriptions" {
  description = "Pull subscriptions holding dead-lettered messages, keyed by source topic (docs/deploy.md, Operations)."
  value       = { for topic, sub in google_pubsub_subscription.dead_letter : topic => sub.id }
}

output "service_accounts" {
  description = "Email of every service account ferret created, keyed by function or role."
  value       = { for key, sa in google_service_account.sa : key => sa.email }
}

output "secrets" {
  description = "Secret Manager secret IDs; add their values with `gcloud secrets versions add`."
  value       = { for key, secret in google_secret_manager_secret.secret : key => secret.secret_id }
}

output "firestore_database" {
  description = "Firestore database ID (FERRET_FIRESTORE_DATABASE)."
  value       = google_firestore_database.ferret.name
}

output "scc_notification_config" {
  description = "Name of the SCC notification config, or null when enable_scc_notification is false."
  value       = try(google_scc_v2_organization_notification_config.findings[0].name, null)
}

output "scc_notification_service_account" {
  description = "Service account SCC publishes with (holds roles/pubsub.publisher on scc-findings)."
  value       = try(google_scc_v2_organization_notification_config.findings[0].service_account, null)
}

output "source_bucket" {
  description = "Bucket holding the function source archives."
  value       = google_storage_bucket.source.name
}
