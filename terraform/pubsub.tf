# Topics, the push subscriptions that feed the Pub/Sub-triggered functions, and their
# dead-letter topics.
#
# Push subscriptions rather than Eventarc triggers: Eventarc creates and owns the subscription
# behind a trigger, so its dead-letter policy cannot be managed here
# (docs/decisions/0004-terraform-deployment.md).

resource "google_pubsub_topic" "topic" {
  for_each = toset(local.topics)

  project = var.project_id
  name    = each.key

  depends_on = [google_project_service.api]
}

resource "google_pubsub_topic" "dead_letter" {
  for_each = local.dead_letter_topics

  project = var.project_id
  name    = "${each.key}-dead-letter"

  depends_on = [google_project_service.api]
}

# A topic without subscriptions drops what it receives: hold dead letters for inspection and replay.
resource "google_pubsub_subscription" "dead_letter" {
  for_each = local.dead_letter_topics

  project = var.project_id
  name    = "${each.key}-dead-letter-hold"
  topic   = google_pubsub_topic.dead_letter[each.key].id

  ack_deadline_seconds       = 60
  message_retention_duration = "1209600s" # 14 days

  expiration_policy {
    ttl = ""
  }
}

resource "google_pubsub_subscription" "push" {
  for_each = local.pubsub_functions

  project = var.project_id
  name    = "${each.value.topic}-${each.value.name}"
  topic   = google_pubsub_topic.topic[each.value.topic].id

  # Pub/Sub waits this long for the function's response before redelivering.
  ack_deadline_seconds       = min(600, max(10, var.functions[each.key].timeout_seconds))
  message_retention_duration = "604800s" # 7 days
  enable_message_ordering    = each.value.ordered

  expiration_policy {
    ttl = ""
  }

  retry_policy {
    minimum_backoff = "10s"
    maximum_backoff = "600s"
  }

  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.dead_letter[each.value.topic].id
    max_delivery_attempts = var.pubsub_max_delivery_attempts
  }

  push_config {
    # The path names the topic: functions-framework reads it into the CloudEvent's source.
    push_endpoint = "${google_cloudfunctions2_function.function[each.key].service_config[0].uri}/projects/${var.project_id}/topics/${each.value.topic}"

    oidc_token {
      service_account_email = google_service_account.sa["pubsubPush"].email
      # Cloud Run checks the token audience against the service URL, not the full endpoint.
      audience = google_cloudfunctions2_function.function[each.key].service_config[0].uri
    }
  }

  depends_on = [
    google_cloud_run_v2_service_iam_member.grant,
    google_service_account_iam_member.pubsub_token_creator,
  ]
}

# -----------------------------------------------------------------------------
# The Pub/Sub service agent (service-PROJECT_NUMBER@gcp-sa-pubsub.iam.gserviceaccount.com)
# forwards undeliverable messages and mints the push OIDC tokens.
# -----------------------------------------------------------------------------

resource "google_project_service_identity" "pubsub" {
  provider = google-beta

  project = var.project_id
  service = "pubsub.googleapis.com"

  depends_on = [google_project_service.api]
}

locals {
  pubsub_service_agent = "serviceAccount:${google_project_service_identity.pubsub.email}"
}

# Publish into each dead-letter topic.
resource "google_pubsub_topic_iam_member" "dead_letter_publisher" {
  for_each = local.dead_letter_topics

  project = var.project_id
  topic   = google_pubsub_topic.dead_letter[each.key].name
  role    = "roles/pubsub.publisher"
  member  = local.pubsub_service_agent
}

# Acknowledge the forwarded message on the source subscription.
resource "google_pubsub_subscription_iam_member" "dead_letter_subscriber" {
  for_each = local.pubsub_functions

  project      = var.project_id
  subscription = google_pubsub_subscription.push[each.key].name
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_service_agent
}

# Mint OIDC tokens for the push identity (required for projects created before April 2021,
# harmless after).
resource "google_service_account_iam_member" "pubsub_token_creator" {
  service_account_id = google_service_account.sa["pubsubPush"].name
  role               = "roles/iam.serviceAccountTokenCreator"
  member             = local.pubsub_service_agent
}
