# Approval of acting tool calls (docs/decisions/0031-approval-pause.md).
#
# The investigate workflow pauses on a Workflows callback for each acting call a step held.
# The responder function (local.functions.responder, its account google_service_account.sa["responder"])
# records the request and, once a person approved it, runs exactly that call; the response
# actions' own least-privilege roles are granted to that account where the actions are defined.
# Only the analystActions worker, which records the Approve / Deny click, may send the callback:
# callbacks need workflows.callbacks.send ("Workflows roles and permissions"). The same worker
# starts an execution for Re-investigate (workflows.executions.create). This custom role holds
# those two permissions and nothing else; roles/workflows.invoker would add reading and listing
# executions, which the worker never does (test/integration/parity/least-privilege.test.ts
# observes its calls). The role id predates the second permission and is kept: a custom role's
# id cannot be reused for weeks after it is deleted.

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
  title       = "ferret approval callbacks and re-investigations"
  description = "Send the callback that wakes an investigation paused on a person's approval, and start the workflow for a re-investigation; nothing else."
  permissions = ["workflows.callbacks.send", "workflows.executions.create"]

  # Custom roles are created through the IAM API.
  depends_on = [google_project_service.api]
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
