import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { catalogEntryFor } from "../../../functions/src/domain/category-catalog.js";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import { isEtdLogEntry, logIdOf } from "../../../functions/src/domain/finding/etd-log-entry.js";
import {
  findingIocs,
  normalizeNotification,
  parseNotification,
} from "../../../functions/src/domain/finding/finding.js";
import { readFindingsText } from "../../../functions/src/domain/finding/finding-file.js";
import { findingIocOccurrences } from "../../../functions/src/domain/finding/finding-iocs.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";

/**
 * An Event Threat Detection finding as Cloud Logging stores it (the log
 * threatdetection.googleapis.com/detection on the resource threat_detector; Google's index of
 * platform logs). The sample is the tune half's real 2019 entry (PROVENANCE.md of
 * test/fixtures/real/scc-round3); the variants change one documented field each.
 */
const sampleText = readFileSync(
  fromRoot("test", "fixtures", "real", "scc-round3", "tune", "sra-hist-etd-iam-anomalous-grant-log.json"),
  "utf8",
);
const sample = () =>
  JSON.parse(sampleText) as Record<string, unknown> & { jsonPayload: Record<string, unknown> };
const readOne = (text: string) => {
  const file = readFindingsText(text);
  assert.equal(file.items.length, 1);
  return { item: file.items[0], finding: normalizeNotification(parseNotification(file.items[0]?.payload)) };
};

/** The sample with a bad-IP rule's properties, as ETD wrote them for network detections. */
function badIpEntry(properties: Record<string, unknown>): Record<string, unknown> {
  const entry = sample();
  entry.jsonPayload = {
    ...entry.jsonPayload,
    detectionCategory: { indicator: "ip", ruleName: "bad_ip", technique: "C2" },
    properties,
  };
  return entry;
}

describe("an Event Threat Detection log entry is read as a finding", () => {
  it("reads the real entry by its layout: identity, category, time, severity, resource, detector", () => {
    const { item, finding } = readOne(sampleText);
    assert.equal(item?.shape, "log-entry");
    assert.equal(finding.envelope, "log-entry");
    assert.equal(
      finding.name,
      "projects/aerial-jigsaw-235219/logs/threatdetection.googleapis.com%2Fdetection/entries/31y1f6a4",
    );
    assert.equal(finding.category, "persistence: iam_anomalous_grant");
    // SCC spelt the same detection "Persistence: IAM Anomalous Grant"; the catalog key matches it.
    assert.equal(
      catalogEntryFor(finding.category)?.category,
      catalogEntryFor("Persistence: IAM Anomalous Grant")?.category,
    );
    assert.ok(catalogEntryFor(finding.category));
    assert.equal(finding.eventTime, "2019-09-09T18:25:49.236Z");
    assert.equal(finding.severity, "HIGH");
    assert.equal(finding.severitySource, "sourceProperties.detectionPriority");
    assert.equal(finding.resource.name, "//cloudresourcemanager.googleapis.com/projects/997507777601");
    assert.equal(finding.parentDisplayName, "Event Threat Detection");
    // A detection entry is never updated, so nothing says it ended: ingest must not skip it.
    assert.equal(finding.state, "ACTIVE");
    assert.deepEqual(
      findingIocs(finding)
        .map((i) => `${i.type}:${i.value}`)
        .sort(),
      ["principal:ccexperts@gmail.com", "principal:tom3fitzgerald@gmail.com"],
    );
  });

  it("reads the entry inside a Pub/Sub push body, as a log sink to Pub/Sub delivers it", () => {
    const body = JSON.stringify({
      message: { data: Buffer.from(sampleText).toString("base64"), messageId: "1" },
      subscription: "projects/p/subscriptions/s",
    });
    const { item, finding } = readOne(body);
    assert.equal(item?.shape, "pubsub-message");
    assert.equal(finding.category, "persistence: iam_anomalous_grant");
  });

  it("takes a network detection's addresses and domains from the properties that declare them", () => {
    const entry = badIpEntry({
      ip: ["198.51.100.7"],
      domain: ["pool.example-miner.com"],
      srcIp: "10.128.0.2",
      destIp: "198.51.100.7",
      sourceInstance: "/projects/p/zones/us-central1-a/instances/vm-1",
      subnetwork_name: "default",
    });
    const report = findingIocOccurrences(normalizeNotification(parseNotification(entry)));
    assert.deepEqual(report.iocs.map((i) => `${i.type}:${i.value}`).sort(), [
      "domain:pool.example-miner.com",
      "ip:198.51.100.7",
    ]);
    assert.deepEqual(
      report.internalEndpoints.map((i) => i.value),
      ["10.128.0.2"],
    );
    // The entry's own bookkeeping (insertIds, organisation and project numbers) is no indicator.
    assert.ok(!report.iocs.some((i) => /31y1f6a4|154584661726|997507777601/.test(i.value)));
  });

  it("knows the entry by its monitored resource type when the log name is missing", () => {
    const entry = sample();
    delete entry.logName;
    assert.equal(isEtdLogEntry(entry), true);
    // Without a log name the entry has no identity to name the finding by: refused as such.
    assert.throws(() => parseNotification(entry), /finding\.name/);
  });

  it("refuses an entry of another log, and an ETD entry that gives no time", () => {
    const other = sample();
    other.logName = "projects/aerial-jigsaw-235219/logs/cloudaudit.googleapis.com%2Factivity";
    other.resource = { type: "project", labels: {} };
    assert.throws(() => readFindingsText(JSON.stringify(other)), InvalidInputError);
    const timeless = sample();
    delete timeless.timestamp;
    delete timeless.jsonPayload.eventTime;
    assert.throws(() => parseNotification(timeless), /eventTime/);
  });

  it("decodes the log ID as the LogEntry reference writes it (URL-encoded)", () => {
    assert.equal(
      logIdOf("projects/p/logs/threatdetection.googleapis.com%2Fdetection"),
      "threatdetection.googleapis.com/detection",
    );
    assert.equal(logIdOf("projects/p/logs/threatdetection.googleapis.com%%2Fdetection"), undefined);
    assert.equal(logIdOf("not a log name"), undefined);
  });

  it("property: a payload key that declares no indicator yields none, whatever it holds", () => {
    const value = fc.oneof(
      fc.ipV4(),
      fc.domain(),
      fc.webUrl(),
      fc.emailAddress(),
      fc.stringMatching(/^[0-9a-f]{64}$/),
      fc.string(),
    );
    fc.assert(
      fc.property(
        fc.constantFrom("subnetwork_name", "location", "note", "project_id", "direction"),
        value,
        (key, v) => {
          const entry = badIpEntry({ [key]: v });
          const iocs = findingIocs(normalizeNotification(parseNotification(entry)));
          assert.deepEqual(
            iocs.filter((i) => i.type !== "principal"),
            [],
            `${key}: ${JSON.stringify(v)}`,
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
