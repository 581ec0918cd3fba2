import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  CATEGORY_CATALOG,
  catalogEntryFor,
  categoryKey,
} from "../../../functions/src/domain/category-catalog.js";

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
      assert.match(entry.source, /^https:\/\/cloud\.google\.com\//, entry.category);
      assert.ok(entry.investigate.length > 0, entry.category);
      if (entry.findingClass === "THREAT")
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
