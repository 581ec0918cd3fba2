# Cloud Scheduler asks the sweep function for a scheduled sweep (SCHEDULED_SWEEP in
# functions/src/app/sweep-request.ts) on its own topic, so an investigation whose workflow died
# reaches a person and a governor slot whose finish was never announced is freed, even when no
# findings arrive. A Pub/Sub target rather than an HTTP one: the sweep function also takes the
# notifier's drain requests from that topic, and a missed request is retried and dead-lettered
# like every other message (docs/decisions/0029-sweep-entry-point.md).

resource "google_cloud_scheduler_job" "sweep" {
  project     = var.project_id
  region      = var.region
  name        = "ferret-sweep"
  description = "ferret: marks investigations whose workflow died as needs_human; drains the storm governor's queue."
  schedule    = var.sweep_schedule
  time_zone   = "Etc/UTC"

  pubsub_target {
    topic_name = google_pubsub_topic.topic["sweep-requests"].id
    data       = base64encode(jsonencode({ kind = "scheduled" }))
  }

  depends_on = [google_project_service.api]
}
