# SCC write-back: ferret's verdict and the analyst's decision as security marks on the finding,
# and — when an analyst chooses it in Slack — mute or state INACTIVE. One custom organization
# role with exactly the permissions those three API calls need (the IAM Permissions sections of
# findings.updateSecurityMarks, findings.setMute and findings.setState in the SCC reference).
# Off unless enable_scc_writeback is set.
#
# The grant to the analystActions worker's service account belongs in iam.tf's grant table once
# the worker is in local.functions (an organization-scope row with this role); until then
# grant it by hand: gcloud organizations add-iam-policy-binding ORG --role=<output
# scc_writeback_role> --member=serviceAccount:<worker SA>.

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
}

output "scc_writeback_role" {
  description = "The custom role to grant to the analystActions worker's service account (organization scope)."
  value       = var.enable_scc_writeback ? google_organization_iam_custom_role.scc_writeback[0].name : null
}
