import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type Finding,
  normalizeNotification,
  parseNotification,
} from "../../../functions/src/domain/finding/finding.js";
import { findingIocOccurrences } from "../../../functions/src/domain/finding/finding-iocs.js";
import type { JsonValue } from "../../../functions/src/domain/json.js";
import { CutList, fitBudget } from "../../../functions/src/domain/json-cap.js";

function finding(extra: Record<string, unknown>): Finding {
  return normalizeNotification(
    parseNotification({
      finding: {
        name: "organizations/1/sources/2/findings/3",
        category: "Persistence: IAM Anomalous Grant",
        eventTime: "2026-01-01T00:00:00Z",
        ...extra,
      },
    }),
  );
}

const iocs = (f: Finding) => findingIocOccurrences(f).iocs.map((i) => [i.type, i.value, i.path]);

describe("findingIocs reads sourceProperties, nested and flattened", () => {
  it("takes external members and binding deltas (prefix stripped) with their paths", () => {
    const f = finding({
      sourceProperties: {
        properties: {
          externalMembers: ["user:mallory@gmail.com"],
          bindingDeltas: [
            {
              action: "ADD",
              role: "roles/owner",
              member: "serviceAccount:x@evil-proj.iam.gserviceaccount.com",
            },
          ],
        },
      },
    });
    assert.deepEqual(iocs(f), [
      ["principal", "mallory@gmail.com", "sourceProperties.properties.externalMembers[0]"],
      [
        "principal",
        "x@evil-proj.iam.gserviceaccount.com",
        "sourceProperties.properties.bindingDeltas[0].member",
      ],
    ]);
  });

  it("takes flattened keys as Pub/Sub attribute-style exports write them", () => {
    const f = finding({
      sourceProperties: {
        properties_externalMembers_0: "user:mallory@gmail.com",
        properties_callerIp: "198.51.100.9",
      },
    });
    assert.deepEqual(iocs(f), [
      ["principal", "mallory@gmail.com", "sourceProperties.properties_externalMembers_0"],
      ["ip", "198.51.100.9", "sourceProperties.properties_callerIp"],
    ]);
  });

  it("takes a private attacker IP as an internal endpoint, not an IOC, with its path", () => {
    const f = finding({
      sourceProperties: { loginAttempts: [{ sourceIp: "10.200.0.2", userName: "bob.schmidt" }] },
    });
    assert.deepEqual(iocs(f), []);
    assert.deepEqual(findingIocOccurrences(f).internalEndpoints, [
      { value: "10.200.0.2", path: "sourceProperties.loginAttempts[0].sourceIp" },
    ]);
  });

  it("does not read an account name as a domain, nor a file path", () => {
    const f = finding({ sourceProperties: { user: "ops.schmidt", script: "/tmp/.x/start.sh" } });
    assert.deepEqual(iocs(f), []);
  });

  it("skips Google's prose, console links, contacts and mute bookkeeping", () => {
    const f = finding({
      sourceProperties: {
        Recommendation: "Go to https://console.cloud.google.com/iam-admin/iam and remove gmail.com addresses",
        contextUris: { mitreUri: { url: "https://attack.mitre.org/techniques/T1098/" } },
      },
      contacts: { security: { contacts: [{ email: "secops@acme.com" }] } },
      muteInitiator: "Muted by admin@acme.com",
    });
    assert.deepEqual(iocs(f), []);
  });

  it("reads fields kept verbatim, such as data access events and exfiltration targets", () => {
    const f = finding({
      dataAccessEvents: [{ principalEmail: "reader@evil.icu", operation: "READ" }],
      exfiltration: { targets: [{ name: "//bigquery.googleapis.com/projects/attacker/datasets/exfil" }] },
    });
    const report = findingIocOccurrences(f);
    assert.deepEqual(
      report.iocs.map((i) => [i.type, i.value, i.path]),
      [["principal", "reader@evil.icu", "dataAccessEvents[0].principalEmail"]],
    );
    assert.deepEqual(report.resources, [
      {
        name: "//bigquery.googleapis.com/projects/attacker/datasets/exfil",
        path: "exfiltration.targets[0].name",
      },
    ]);
  });
});

describe("findingIocs reads documented fields it used to skip", () => {
  it("takes a public connection source, not the VM's own private address", () => {
    const f = finding({
      connections: [
        { sourceIp: "203.0.113.5", destinationIp: "10.0.0.2", destinationPort: 22 },
        { sourceIp: "10.128.0.7", destinationIp: "45.9.148.108", destinationPort: 3333 },
      ],
    });
    assert.deepEqual(
      iocs(f).filter(([, , path]) => String(path).endsWith("sourceIp")),
      [["ip", "203.0.113.5", "connections[0].sourceIp"]],
    );
  });

  it("takes the delegation chain and the principal subject", () => {
    const f = finding({
      access: {
        principalEmail: "sa@p.iam.gserviceaccount.com",
        principalSubject: "user:alice@acme.com",
        serviceAccountDelegationInfo: [{ principalEmail: "mallory@gmail.com" }],
      },
    });
    assert.deepEqual(f.access?.delegationChain, ["mallory@gmail.com"]);
    assert.deepEqual(iocs(f), [
      ["principal", "sa@p.iam.gserviceaccount.com", "access.principalEmail"],
      ["principal", "alice@acme.com", "access.principalSubject"],
      ["principal", "mallory@gmail.com", "access.serviceAccountDelegationInfo[0]"],
    ]);
  });

  it("lists every occurrence, and each IOC once with its first path", () => {
    const f = finding({
      iamBindings: [{ action: "ADD", role: "roles/owner", member: "user:mallory@gmail.com" }],
      sourceProperties: { properties: { externalMembers: ["user:mallory@gmail.com"] } },
    });
    const report = findingIocOccurrences(f);
    assert.equal(report.iocs.length, 1);
    assert.equal(report.iocs[0]?.path, "iamBindings[0].member");
    assert.deepEqual(
      report.occurrences.map((o) => o.path),
      ["iamBindings[0].member", "sourceProperties.properties.externalMembers[0]"],
    );
  });
});

describe("fitBudget", () => {
  const blob = "x".repeat(2_000);
  it("cuts IOC-free subtrees before IOC-bearing ones, largest first, and lists each cut", () => {
    const root: Record<string, JsonValue> = {
      a: blob,
      iocs: { ip: "198.51.100.1", pad: "y".repeat(1_500) },
      b: blob.slice(0, 1_800),
    };
    const cuts = new CutList();
    const out = fitBudget(root, 2_500, "sp", cuts);
    // a (2 KB) then b (1.8 KB) go; the IOC-bearing subtree and its padding stay.
    assert.deepEqual(cuts.paths, ["sp.a", "sp.b"]);
    assert.equal(out.a, "…[cut: 2002 bytes]");
    assert.deepEqual(out.iocs, root.iocs);
    assert.equal(root.a, blob, "the input is not modified");
  });

  it("cuts an IOC-bearing subtree only when nothing else is left to cut", () => {
    const cuts = new CutList();
    const out = fitBudget({ only: { ip: "198.51.100.1", pad: "z".repeat(3_000) } }, 500, "sp", cuts);
    assert.deepEqual(cuts.paths, ["sp.only.pad"]);
    assert.deepEqual(out, { only: { ip: "198.51.100.1", pad: "…[cut: 3002 bytes]" } });
  });
});
