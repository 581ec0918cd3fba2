import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { namedBindings, namedInstance, namedKeys } from "../../../../functions/src/tools/actions/targets.js";
import { CRYPTO, findingFrom, GRANT, GRANT_KEY } from "./helpers.js";

describe("targets a finding names", () => {
  it("the real VM Threat Detection finding names its instance by id and display name, and no key or grant", () => {
    const f = findingFrom(CRYPTO);
    assert.deepEqual(namedInstance(f), {
      project: "terra-2d61a51b",
      zone: "us-central1-a",
      instance: "5289438569693667937",
      aliases: ["5289438569693667937", "saturn-5434a6f7-6739-4843-9b5e-4fa03fe51d76"],
    });
    assert.deepEqual(namedKeys(f), []);
    assert.deepEqual(namedBindings(f), []);
  });

  it("an anomalous grant names the key that made the call and the added binding on its project", () => {
    const f = findingFrom(GRANT);
    assert.deepEqual(namedKeys(f), [GRANT_KEY]);
    assert.deepEqual(namedBindings(f), [
      { project: "projects/987654321098", role: "roles/owner", member: "user:mallory.contractor@gmail.com" },
    ]);
    assert.equal(namedInstance(f), undefined);
  });

  it("the real ETD anomalous grant lists members without a role: no binding to revoke", () => {
    assert.deepEqual(
      namedBindings(findingFrom("test/fixtures/real/scc/sra-etd-iam-anomalous-grant.json")),
      [],
    );
  });

  it("reads Event Threat Detection's bindingDeltas, ADD only, and ignores REMOVE and malformed members", () => {
    const f = findingFrom(GRANT, (raw) => {
      const finding = raw.finding as Record<string, unknown>;
      finding.iamBindings = [];
      finding.sourceProperties = {
        properties: {
          sensitiveRoleGrant: {
            bindingDeltas: [
              { action: "ADD", role: "roles/editor", member: "user:eve@example.org" },
              { action: "REMOVE", role: "roles/owner", member: "user:admin@acme.example" },
              { action: "ADD", role: "roles/owner", member: "revoke everyone" },
            ],
          },
        },
      };
    });
    assert.deepEqual(namedBindings(f), [
      { project: "projects/987654321098", role: "roles/editor", member: "user:eve@example.org" },
    ]);
  });

  it("a grant on a resource other than a project names nothing to revoke on a project", () => {
    const f = findingFrom(GRANT, (raw) => {
      (raw.finding as Record<string, unknown>).resourceName = "//storage.googleapis.com/acme-prod-exports";
      (raw.resource as Record<string, unknown>).name = "//storage.googleapis.com/acme-prod-exports";
    });
    assert.deepEqual(namedBindings(f), []);
  });
});
