# SCC write-back: ferret's verdict and the analyst's decision as security marks on the finding,
# and — when an analyst chooses it in Slack — mute or state INACTIVE. One custom organization
# role with exactly the permissions those three API calls need (the IAM Permissions sections of
# findings.updateSecurityMarks, findings.setMute and findings.setState in the SCC reference).
# Off unless enable_scc_writeback is set. The role is granted to the analystActions worker only,
# at organization scope (findings live under the organization's sources); it is not a row of
# iam.tf's grant table, which holds predefined roles on ferret's own resources.

resource "google_organization_iam_custom_role" "scc_writeback" {
  count = var.enable_scc_writeback ? 1 : 0

  org_id      = var.organization_id
  role_id     = var.scc_writeback_role_id
  title       = "ferret SCC write-back"
  description = "Security marks, mute and state on SCC findings; nothing else (ferret analyst actions)."
  permissions = [
    "securitycenter.findings.setMute",
    "securitycenter.findings.setState",
    "securitycenter.findingsecuritymarks.update",
  ]

  # Custom roles are created through the IAM API.
  depends_on = [google_project_service.api]
}

resource "google_organization_iam_member" "scc_writeback" {
  count = var.enable_scc_writeback ? 1 : 0

  org_id = var.organization_id
  role   = google_organization_iam_custom_role.scc_writeback[0].name
  member = google_service_account.sa["analystActions"].member
}

output "scc_writeback_role" {
  description = "The custom role granted to the analystActions worker's service account at organization scope (null when enable_scc_writeback is false)."
  value       = var.enable_scc_writeback ? google_organization_iam_custom_role.scc_writeback[0].name : null
}
