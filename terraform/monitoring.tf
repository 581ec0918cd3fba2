# The planning design's metrics and where an investigation's time and model use go, as the
# functions write them to Cloud Monitoring (FERRET_TELEMETRY_EXPORTER=google-cloud,
# docs/decisions/0055). Google's metric exporter names each instrument
# workload.googleapis.com/<name> and writes a label per attribute with "." made "_".
#
# Each planning metric is a histogram of one sample per finished investigation (or ended step):
# 1/0 for a rate, a count for mean revisions (functions/src/app/investigation-meters.ts), so the
# mean of its values is the metric. ALIGN_DELTA then REDUCE_MEAN plots that mean per day over
# every instance ("REDUCE_MEAN ... valid for DELTA and GAUGE metrics with numeric or
# distribution values", google.monitoring.v3.Aggregation.Reducer). The thresholds are the
# design's targets, the same as functions/src/app/planning-metrics.ts's PLANNING_TARGETS
# (test/unit/terraform/monitoring.test.ts compares them).

locals {
  metric_prefix = "workload.googleapis.com"

  # name => the target and which side of it is a miss (a line under "BELOW"'s target misses).
  planning_targets = {
    completion           = { title = "Completion (reached a verdict)", value = 0.9, direction = "BELOW" }
    first_plan_completes = { title = "First plan completes without revision", value = 0.8, direction = "BELOW" }
    revision_rate        = { title = "Revision rate", value = 0.3, direction = "ABOVE" }
    mean_revisions       = { title = "Mean revisions", value = 1.5, direction = "ABOVE" }
    first_try_success    = { title = "First-try success of steps", value = 0.7, direction = "BELOW" }
    error_recovery       = { title = "Recovery from a failed step", value = 0.8, direction = "BELOW" }
  }

  planning_tiles = [
    for name, t in local.planning_targets : {
      title = t.title
      xyChart = {
        dataSets = [{
          plotType = "LINE"
          timeSeriesQuery = {
            timeSeriesFilter = {
              filter = "metric.type=\"${local.metric_prefix}/ferret.planning.${name}\""
              aggregation = {
                alignmentPeriod    = "86400s"
                perSeriesAligner   = "ALIGN_DELTA"
                crossSeriesReducer = "REDUCE_MEAN"
              }
            }
          }
        }]
        thresholds = [{ value = t.value, direction = t.direction, color = "RED", label = "design target" }]
      }
    }
  ]

  # Time and model use per phase: a phase is the span's phase (planning, execution, reflection,
  # conclusion, ...), model use is by the role that asked (planner, executor, reflector, ...).
  usage_tiles = [
    {
      title = "Seconds per call, by phase (mean)"
      xyChart = {
        dataSets = [{
          plotType = "LINE"
          timeSeriesQuery = {
            timeSeriesFilter = {
              filter = "metric.type=\"${local.metric_prefix}/ferret.phase.duration\""
              aggregation = {
                alignmentPeriod    = "3600s"
                perSeriesAligner   = "ALIGN_DELTA"
                crossSeriesReducer = "REDUCE_MEAN"
                groupByFields      = ["metric.label.ferret_phase"]
              }
            }
          }
        }]
      }
    },
    {
      title = "Seconds per investigation, by ending (mean)"
      xyChart = {
        dataSets = [{
          plotType = "LINE"
          timeSeriesQuery = {
            timeSeriesFilter = {
              filter = "metric.type=\"${local.metric_prefix}/ferret.investigation.duration\""
              aggregation = {
                alignmentPeriod    = "3600s"
                perSeriesAligner   = "ALIGN_DELTA"
                crossSeriesReducer = "REDUCE_MEAN"
                groupByFields      = ["metric.label.ferret_status"]
              }
            }
          }
        }]
      }
    },
    {
      title = "Model calls per hour, by role"
      xyChart = {
        dataSets = [{
          plotType = "STACKED_BAR"
          timeSeriesQuery = {
            timeSeriesFilter = {
              filter = "metric.type=\"${local.metric_prefix}/ferret.model.calls\""
              aggregation = {
                alignmentPeriod    = "3600s"
                perSeriesAligner   = "ALIGN_DELTA"
                crossSeriesReducer = "REDUCE_SUM"
                groupByFields      = ["metric.label.ferret_role"]
              }
            }
          }
        }]
      }
    },
    {
      title = "Model tokens per hour, by role and type"
      xyChart = {
        dataSets = [{
          plotType = "STACKED_BAR"
          timeSeriesQuery = {
            timeSeriesFilter = {
              filter = "metric.type=\"${local.metric_prefix}/ferret.model.tokens\""
              aggregation = {
                alignmentPeriod    = "3600s"
                perSeriesAligner   = "ALIGN_DELTA"
                crossSeriesReducer = "REDUCE_SUM"
                groupByFields      = ["metric.label.ferret_role", "metric.label.gen_ai_token_type"]
              }
            }
          }
        }]
      }
    },
  ]

  dashboard_tiles = concat(local.planning_tiles, local.usage_tiles)
}

resource "google_monitoring_dashboard" "ferret" {
  project = var.project_id
  dashboard_json = jsonencode({
    displayName = "ferret: planning and time"
    mosaicLayout = {
      columns = 12
      tiles = [
        for i, tile in local.dashboard_tiles : {
          xPos   = (i % 2) * 6
          yPos   = floor(i / 2) * 4
          width  = 6
          height = 4
          widget = tile
        }
      ]
    }
  })

  depends_on = [google_project_service.api]
}
