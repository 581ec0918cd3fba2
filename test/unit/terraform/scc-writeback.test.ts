// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions, not JS templates.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { loadTerraform, resource, strings } from "./hcl.js";

const tf = await loadTerraform();

// The documented permission of each SCC method the adapter calls (IAM Permissions sections of
// the Security Command Center REST reference).
const PERMISSION_BY_METHOD: Record<string, string> = {
  updateSecurityMarks: "securitycenter.findingsecuritymarks.update",
  setMute: "securitycenter.findings.setMute",
  setFindingState: "securitycenter.findings.setState",
};

test("the SCC write-back role holds exactly the permissions of the calls the adapter makes", () => {
  const adapter = readFileSync(fromRoot("functions/src/adapters/scc/scc-findings.ts"), "utf8");
  const called = [...adapter.matchAll(/\.(updateSecurityMarks|setMute|setFindingState)\(/g)].map(
    (m) => m[1] ?? "",
  );
  const needed = [
    ...new Set(called.map((method) => PERMISSION_BY_METHOD[method] ?? `unknown:${method}`)),
  ].sort();
  const role = resource(tf, "google_organization_iam_custom_role.scc_writeback");
  assert.deepEqual(strings(role.permissions, "permissions").sort(), needed);
  assert.equal(role.count, "${var.enable_scc_writeback ? 1 : 0}");
});
