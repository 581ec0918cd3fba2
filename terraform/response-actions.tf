# Built-in response actions (functions/src/tools/actions/, docs/decisions/0032): disable a
# service-account key, add a deny-egress network tag to an instance, revoke an IAM grant. Each
# runs only after a person approves the exact call in Slack, and only the responder function
# runs approved calls, so only its identity gets the permissions. The role holds exactly the
# permissions of the enabled actions' REST methods (their "Authorization requires" lines in the
# IAM, Compute Engine and Resource Manager references), at organization scope because findings
# come from every project of the organization. Nothing here exists while no action is enabled.

variable "response_actions" {
  description = "Response actions ferret may propose and, once a person approves, run (FERRET_ACTIONS_ENABLED): disable_service_account_key, add_deny_egress_tag, revoke_iam_binding. Empty: none."
  type        = list(string)
  default     = []

  validation {
    condition = alltrue([
      for a in var.response_actions : contains(["disable_service_account_key", "add_deny_egress_tag", "revoke_iam_binding"], a)
    ])
    error_message = "response_actions: each entry is disable_service_account_key, add_deny_egress_tag or revoke_iam_binding."
  }
}

variable "response_actions_role_id" {
  description = "Role id of the organization custom role the responder acts with."
  type        = string
  default     = "ferretResponseActions"

  validation {
    # 64 at most for a role id, less "Preview" for the previews' role.
    condition     = can(regex("^[a-zA-Z0-9_.]{3,57}$", var.response_actions_role_id))
    error_message = "response_actions_role_id: 3-57 letters, digits, underscores or dots (the previews' role adds \"Preview\")."
  }
}

variable "deny_egress_tag" {
  description = "The network tag add_deny_egress_tag adds (FERRET_ACTIONS_DENY_EGRESS_TAG); the firewall rules below deny all egress from instances carrying it."
  type        = string
  default     = "ferret-deny-egress"

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$", var.deny_egress_tag))
    error_message = "deny_egress_tag: an RFC 1035 label (lowercase letters, digits, dashes; 63 at most)."
  }
}

variable "deny_egress_networks" {
  description = "VPC networks whose instances add_deny_egress_tag may isolate: each gets a deny-all-egress firewall rule targeting deny_egress_tag. A tag on an instance in a network without the rule changes nothing."
  type        = list(object({ project = string, network = string }))
  default     = []
}

variable "deny_egress_priority" {
  description = "Priority of the deny-all-egress rules; lower numbers win, so it must be below every egress allow rule in those networks."
  type        = number
  default     = 100

  validation {
    condition     = var.deny_egress_priority >= 0 && var.deny_egress_priority <= 65535
    error_message = "deny_egress_priority: 0 to 65535."
  }
}

locals {
  # The documented permission of each REST method an action calls; the dry-run preview reads,
  # the action writes.
  response_action_permissions = {
    disable_service_account_key = ["iam.serviceAccountKeys.get", "iam.serviceAccountKeys.disable"]
    add_deny_egress_tag         = ["compute.instances.get", "compute.instances.setTags"]
    revoke_iam_binding          = ["resourcemanager.projects.getIamPolicy", "resourcemanager.projects.setIamPolicy"]
  }
  # The read each action's dry-run preview makes. The step executor previews a call when it
  # holds it for approval (the preview is shown to the person who decides), so it needs these,
  # and only these, without the action's write.
  response_action_read_permissions = {
    disable_service_account_key = ["iam.serviceAccountKeys.get"]
    add_deny_egress_tag         = ["compute.instances.get"]
    revoke_iam_binding          = ["resourcemanager.projects.getIamPolicy"]
  }
  response_actions_enabled = length(var.response_actions) > 0
}

resource "google_organization_iam_custom_role" "response_actions" {
  count = local.response_actions_enabled ? 1 : 0

  org_id      = var.organization_id
  role_id     = var.response_actions_role_id
  title       = "ferret response actions"
  description = "Only what ferret's enabled, approval-gated response actions call (docs/decisions/0032)."
  permissions = sort(distinct(flatten([for a in var.response_actions : local.response_action_permissions[a]])))

  # Custom roles are created through the IAM API.
  depends_on = [google_project_service.api]
}

resource "google_organization_iam_member" "response_actions" {
  count = local.response_actions_enabled ? 1 : 0

  org_id = var.organization_id
  role   = google_organization_iam_custom_role.response_actions[0].name
  member = google_service_account.sa["responder"].member
}

resource "google_organization_iam_custom_role" "response_action_previews" {
  count = local.response_actions_enabled ? 1 : 0

  org_id      = var.organization_id
  role_id     = "${var.response_actions_role_id}Preview"
  title       = "ferret response action previews"
  description = "Only the reads of ferret's enabled response actions' dry-run previews (docs/decisions/0032)."
  permissions = sort(distinct(flatten([for a in var.response_actions : local.response_action_read_permissions[a]])))

  # Custom roles are created through the IAM API.
  depends_on = [google_project_service.api]
}

resource "google_organization_iam_member" "response_action_previews" {
  count = local.response_actions_enabled ? 1 : 0

  org_id = var.organization_id
  role   = google_organization_iam_custom_role.response_action_previews[0].name
  member = google_service_account.sa["stepExecutor"].member
}

# The rule that gives the tag its meaning: all egress from a tagged instance is denied. One rule
# per network and address family (a VPC firewall rule holds IPv4 or IPv6 ranges, not both).
# Firewall rule names are unique per project, not per network, so the name carries a digest of
# the network: two networks of one project get two rules instead of a 409 on the second. The
# network's own name may be 63 characters, too long to fit beside the prefix.
resource "google_compute_firewall" "deny_egress" {
  for_each = contains(var.response_actions, "add_deny_egress_tag") ? {
    for pair in setproduct(var.deny_egress_networks, ["ipv4", "ipv6"]) :
    "${pair[0].project}/${pair[0].network}/${pair[1]}" => { project = pair[0].project, network = pair[0].network, family = pair[1] }
  } : {}

  project            = each.value.project
  network            = each.value.network
  name               = "ferret-deny-egress-${each.value.family}-${substr(sha256(each.value.network), 0, 12)}"
  description        = "ferret add_deny_egress_tag: instances tagged ${var.deny_egress_tag} may send nothing."
  direction          = "EGRESS"
  priority           = var.deny_egress_priority
  target_tags        = [var.deny_egress_tag]
  destination_ranges = [each.value.family == "ipv4" ? "0.0.0.0/0" : "::/0"]

  deny {
    protocol = "all"
  }

  log_config {
    metadata = "INCLUDE_ALL_METADATA"
  }

  depends_on = [google_project_service.feature_api]
}

output "response_actions_role" {
  description = "The custom role granted to the responder's service account at organization scope (null while no response action is enabled)."
  value       = local.response_actions_enabled ? google_organization_iam_custom_role.response_actions[0].name : null
}
