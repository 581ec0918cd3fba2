# Approval of acting tool calls (docs/decisions/0031-approval-pause.md).
#
# The investigate workflow pauses on a Workflows callback for each acting call a step held.
# The responder function (local.functions.responder, its account google_service_account.sa["responder"])
# records the request and, once a person approved it, runs exactly that call; the response
# actions' own least-privilege roles are granted to that account where the actions are defined.
# Only the analystActions worker, which records the Approve / Deny click, may send the callback:
# callbacks need workflows.callbacks.send ("Workflows roles and permissions"), which this custom
# role holds alone (roles/workflows.invoker would also let it start executions).

variable "approval_timeout_seconds" {
  description = "How long the workflow waits for a person to Approve or Deny an acting tool call before it continues without it (FERRET_APPROVAL_TIMEOUT_SECONDS). The investigation's deadline still bounds the wait."
  type        = number
  default     = 900

  validation {
    condition     = var.approval_timeout_seconds >= 60 && var.approval_timeout_seconds <= 43200
    error_message = "approval_timeout_seconds must be between 60 and 43200 (events.await_callback's default, 12 hours)."
  }
}

variable "slack_approvers" {
  description = "Slack user IDs (U... or W...) who may Approve or Deny an acting tool call (FERRET_SLACK_APPROVERS). Empty: nobody can approve, and every acting call waits out approval_timeout_seconds."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for id in var.slack_approvers : can(regex("^[UW][A-Z0-9]{2,}$", id))])
    error_message = "slack_approvers holds Slack user IDs (U... or W...), not names."
  }
}

resource "google_project_iam_custom_role" "approval_callbacks" {
  project     = var.project_id
  role_id     = "ferretApprovalCallbacks"
  title       = "ferret approval callbacks"
  description = "Send the callback that wakes an investigation paused on a person's approval; nothing else."
  permissions = ["workflows.callbacks.send"]
}

resource "google_project_iam_member" "approval_callbacks" {
  project = var.project_id
  role    = google_project_iam_custom_role.approval_callbacks.id
  member  = google_service_account.sa["analystActions"].member
}

output "responder_service_account" {
  description = "The responder's service account: approved acting calls run as it, so response actions grant their roles to it."
  value       = google_service_account.sa["responder"].email
}
