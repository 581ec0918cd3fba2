# A housekeeping tick on the findings topic: ingest recognises the attribute (SWEEP_TICK in
# functions/src/platform/topics.ts) and runs the sweep of stalled investigations instead of
# parsing a finding, so an investigation whose workflow died reaches a person even when no
# findings arrive. Ingest also sweeps after ordinary messages, at most once per 15 minutes.

resource "google_cloud_scheduler_job" "sweep" {
  count = var.sweep_schedule == null ? 0 : 1

  project     = var.project_id
  region      = var.region
  name        = "ferret-sweep"
  description = "ferret: marks investigations whose workflow died as needs_human."
  schedule    = var.sweep_schedule
  time_zone   = "Etc/UTC"

  pubsub_target {
    topic_name = google_pubsub_topic.topic["scc-findings"].id
    data       = base64encode("{}")
    attributes = {
      "ferret-task" = "sweep"
    }
  }

  depends_on = [google_project_service.api]
}
