import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GOOGLE_LISTED_CATEGORIES } from "../../../functions/src/domain/catalog/google-lists.js";
import {
  CATEGORY_CATALOG,
  catalogEntryFor,
  categoryKey,
  generatedPlaybook,
} from "../../../functions/src/domain/category-catalog.js";
import { findingSource, isCustomSource } from "../../../functions/src/domain/finding-source.js";
import { readSavedPages } from "../../../scripts/catalog/google-lists.js";

describe("category catalog", () => {
  it("finds an entry whatever the spelling of the category", () => {
    for (const spelling of ["Malware: Bad Domain", "MALWARE_BAD_DOMAIN", "malware: bad domain (Preview)"])
      assert.equal(catalogEntryFor(spelling)?.category, "Malware: Bad Domain", spelling);
    assert.equal(catalogEntryFor("Persistence: Something Google never documented"), undefined);
  });

  it("describes each entry with its detector, ATT&CK techniques, what to check and a Google documentation page", () => {
    const grant = catalogEntryFor("Persistence: IAM Anomalous Grant");
    assert.equal(grant?.detector, "event_threat_detection");
    assert.deepEqual(grant?.mitre, ["T1098"]);
    assert.equal(grant?.playbook, "iam_grant");
    for (const entry of CATEGORY_CATALOG) {
      assert.match(entry.source, /^https:\/\/(?:docs\.)?cloud\.google\.com\//, entry.category);
      assert.ok(entry.investigate.length > 0, entry.category);
      // ferret's own entries carry ATT&CK techniques; generated ones have none to invent.
      if (entry.findingClass === "THREAT" && entry.origin === "ferret")
        assert.ok(entry.mitre.length > 0, `${entry.category} has a technique`);
    }
  });

  it("keys are unique, so routing never depends on entry order", () => {
    const keys = CATEGORY_CATALOG.map((e) => categoryKey(e.category));
    assert.equal(new Set(keys).size, keys.length);
  });

  it("routes by what a category is, not by its tactic prefix", () => {
    // "Credential Access:" is a tactic; the detector watches a group membership change.
    assert.equal(
      catalogEntryFor("Credential Access: External Member Added To Privileged Group")?.playbook,
      "admin_change",
    );
    // Logging off on a bucket is a posture gap, not a public bucket.
    assert.equal(catalogEntryFor("BUCKET_LOGGING_DISABLED")?.playbook, "posture");
    assert.equal(catalogEntryFor("PUBLIC_BUCKET_ACL")?.playbook, "public_bucket");
  });
});

describe("category catalog against Google's saved pages (test/fixtures/real/google-docs)", () => {
  const pages = readSavedPages();

  it("has an entry for every category a saved page names", () => {
    const missing = pages.flatMap((p) =>
      p.categories
        .filter((c) => catalogEntryFor(c.category) === undefined)
        .map((c) => `${p.file}: ${c.category}`),
    );
    assert.deepEqual(missing, []);
    assert.ok(pages.reduce((n, p) => n + p.categories.length, 0) >= 500);
  });

  it("is generated from the saved lists as they are (run scripts/catalog/generate-google-lists.ts after editing one)", () => {
    const saved = pages.flatMap((p) =>
      p.categories.map((c) =>
        [c.category, c.apiNames.join(" "), c.detector, c.findingClass, c.page].join("|"),
      ),
    );
    const generated = GOOGLE_LISTED_CATEGORIES.map((c) =>
      [c.category, c.apiNames.join(" "), c.detector, c.findingClass, c.page].join("|"),
    );
    assert.deepEqual(generated, saved);
    for (const p of pages) assert.match(p.retrieved, /^\d{4}-\d{2}-\d{2}$/, p.file);
  });

  it("knows old and new spellings and API names as aliases of one entry", () => {
    const same = (a: string, b: string) =>
      assert.equal(catalogEntryFor(a), catalogEntryFor(b), `${a} / ${b}`);
    same("Persistence: GCE Admin Added SSH Key", "Persistence: Compute Engine Admin Added SSH Key");
    same("GCE_ADMIN_ADD_SSH_KEY", "Persistence: Compute Engine Admin Added SSH Key");
    same(
      "Privilege Escalation: External Member Added To Privileged Group",
      "Credential Access: External Member Added To Privileged Group",
    );
    same("CRYPTOMINING_POOL_DOMAIN", "Malware: Cryptomining Bad Domain");
    same("CLOUD_RUN_CONTAINER_ESCAPE", "Execution: Container Escape");
    same("C2: Bad IP", "Malware: Bad IP");
    assert.ok(
      catalogEntryFor("Malware: Bad IP")?.aliases.includes("MALWARE_BAD_IP") === false,
      "same key, no alias needed",
    );
  });

  it("covers the categories the issue found missing", () => {
    for (const category of [
      "COMPUTE_SECURE_BOOT_DISABLED",
      "OS_VULNERABILITY",
      "API_KEY_EXISTS",
      "DNSSEC_DISABLED",
      "PRIVATE_GOOGLE_ACCESS_DISABLED",
    ])
      assert.ok(catalogEntryFor(category), category);
  });

  it("gives generated entries their playbook by explicit rules", () => {
    const rule = (category: string, detector: string, findingClass: string) =>
      generatedPlaybook({ category, detector, findingClass });
    assert.equal(
      rule(
        "Impact: Suspicious crypto mining activity using the Stratum Protocol",
        "container_threat_detection",
        "THREAT",
      ),
      "cryptomining",
    );
    assert.equal(
      rule(
        "Exfiltration: Launch Remote File Copy Tools in Container",
        "container_threat_detection",
        "THREAT",
      ),
      "exfiltration",
    );
    assert.equal(rule("Execution: Container Escape", "cloud_run_threat_detection", "THREAT"), "runtime");
    assert.equal(rule("Impact: Service API Disabled", "event_threat_detection", "THREAT"), "admin_change");
    assert.equal(rule("PUBLIC_LOG_BUCKET", "security_health_analytics", "VULNERABILITY"), "public_bucket");
    assert.equal(rule("DNSSEC_DISABLED", "security_health_analytics", "VULNERABILITY"), "posture");
  });
});

describe("a finding's detector and catalog match (finding-source.ts)", () => {
  it("a custom source's category is custom: the generic plan applies by rule", () => {
    const gridtide = {
      category: "Malware: GRIDTIDE Backdoor & SoftEtherVPN C2 (UNC2814)",
      sourceProperties: { campaign: "x" },
    };
    assert.equal(isCustomSource(gridtide), true);
    assert.equal(isCustomSource({ category: "Anything", parentDisplayName: "Acme Scanner" }), true);
    // A built-in source's new category is not custom: it is planned from its words.
    assert.equal(
      isCustomSource({
        category: "Persistence: Brand New Rule",
        parentDisplayName: "Event Threat Detection",
      }),
      false,
    );
    assert.equal(
      isCustomSource({
        category: "C2: Bad IP",
        sourceProperties: { detectionCategory: { ruleName: "bad_ip" } },
      }),
      false,
    );
  });

  it("names the detector from parentDisplayName, the catalog or the detector's own keys", () => {
    assert.equal(
      findingSource({ category: "OPEN_FIREWALL", parentDisplayName: "Security Health Analytics" })
        .detectorFrom,
      "parentDisplayName",
    );
    assert.equal(findingSource({ category: "OS_VULNERABILITY" }).detector, "VM Manager");
    assert.equal(
      findingSource({ category: "SOMETHING_NEW", sourceProperties: { ScannerName: "X" } }).detector,
      "Security Health Analytics",
    );
  });
});
