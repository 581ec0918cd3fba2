import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { ingestDecision } from "../../../functions/src/app/ingest.js";
import { ConfigSchema } from "../../../functions/src/config/config.js";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import {
  findingIocs,
  normalizeNotification,
  parseNotification,
} from "../../../functions/src/domain/finding/finding.js";
import { FINDING_ENUMS } from "../../../functions/src/domain/finding/finding-enums.js";
import {
  readFindingsDocument,
  readFindingsText,
} from "../../../functions/src/domain/finding/finding-file.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";

/**
 * Every shape a user has a finding in. The samples are the real ones of test/fixtures/real/scc;
 * where a shape has no public sample, a real sample is put in that envelope (adapted envelope,
 * said at each test), the finding itself unchanged.
 */
const real = (file: string) => readFileSync(fromRoot("test", "fixtures", "real", "scc", file), "utf8");
const json = (file: string) => JSON.parse(real(file)) as Record<string, unknown>;
const read = (payload: unknown) => normalizeNotification(parseNotification(payload));
const defaults = ConfigSchema.parse({}).ingest;

describe("the file reader: every shape, finding by finding", () => {
  it("says what is wrong with base64 data that lost a character, without printing its decoded bytes", () => {
    const body = Buffer.from(JSON.stringify({ finding: { name: "n", category: "c" } })).toString("base64");
    const cut = JSON.stringify([{ ackId: "a", message: { data: body.slice(1), messageId: "1" } }]);
    assert.throws(
      () => readFindingsText(cut, "pull.json"),
      (error: unknown) =>
        error instanceof InvalidInputError &&
        /base64 text whose decoded bytes are not JSON; its length, \d+, is not a multiple of 4/.test(
          error.message,
        ) &&
        !error.message.includes("\uFFFD"),
    );
  });

  it("reads a v2 ListFindings response with its resource", () => {
    const file = readFindingsText(real("xsoar-list-findings-v2-response.json"));
    assert.equal(file.container, "a ListFindings response");
    assert.deepEqual(
      file.items.map((i) => [i.origin, i.shape]),
      [["listFindingsResults[0]", "list-findings-result"]],
    );
    const f = read(file.items[0]?.payload);
    assert.equal(f.resource.displayName, "web-server-01");
    assert.equal(f.resource.project, "//cloudresourcemanager.googleapis.com/projects/593109727002");
  });

  it("reads gcloud's array of ListFindings results, and v1's resource.projectName", () => {
    // soar-…-public-bucket: an array of {finding, resource}, as `gcloud scc findings list --format=json` prints.
    const file = readFindingsText(real("soar-scc-get-finding-details-public-bucket.json"));
    assert.equal(file.container, "a JSON array");
    const f = read(file.items[0]?.payload);
    assert.equal(f.category, "PUBLIC_BUCKET_ACL");
    assert.equal(f.resource.project, "//cloudresourcemanager.googleapis.com/projects/1111");
  });

  it("reads JSON Lines and an empty ListFindings response (no finding, no error)", () => {
    const file = readFindingsText(real("elastic-google-scc-test-finding.log"));
    assert.equal(file.container, "JSON Lines");
    assert.equal(file.items.length, 1);
    assert.equal(readFindingsDocument({ listFindingsResults: [], totalSize: 0 }).items.length, 0);
  });

  it("reads a Pub/Sub push body and a pull response (adapted envelope: a real notification, base64)", () => {
    const notification = json("jorgecalo-etd-v2-malware-bad-ip.json");
    const data = Buffer.from(JSON.stringify(notification)).toString("base64");
    const push = readFindingsDocument({
      message: { data, messageId: "1" },
      subscription: "projects/p/subscriptions/s",
    });
    assert.deepEqual(
      push.items.map((i) => i.shape),
      ["pubsub-message"],
    );
    const pull = readFindingsDocument({
      receivedMessages: [
        { ackId: "a", message: { data } },
        { ackId: "b", message: { data } },
      ],
    });
    assert.equal(pull.items.length, 2);
    assert.equal(read(pull.items[1]?.payload).category, "Malware: Bad IP");
  });

  it("reads a message whose data is already decoded, as SIEMs store it: an object, JSON text, a stored PubsubMessage (adapted envelopes, issue 38)", () => {
    const notification = json("jorgecalo-etd-v2-malware-bad-ip.json");
    const shapes = [
      { message: { data: notification, messageId: "1" }, subscription: "projects/p/subscriptions/s" },
      { message: { data: JSON.stringify(notification) } },
      { receivedMessages: [{ ackId: "a", message: { data: notification } }] },
      { data: notification, attributes: {}, messageId: "1", publishTime: "2026-01-01T00:00:00Z" },
      {
        data: Buffer.from(JSON.stringify(notification)).toString("base64"),
        message_id: "1",
        publish_time: "x",
      },
    ];
    for (const doc of shapes) {
      const file = readFindingsDocument(doc);
      assert.deepEqual(
        file.items.map((i) => [i.shape, read(i.payload).category]),
        [["pubsub-message", "Malware: Bad IP"]],
        JSON.stringify(Object.keys(doc)),
      );
    }
  });

  it("reads a Cloud Functions background event and a message that kept only its data (shadanan/gcp-scc-finding-notification-jira-cloud stores the data alone)", () => {
    const data = Buffer.from(JSON.stringify(json("jorgecalo-etd-v2-malware-bad-ip.json"))).toString("base64");
    for (const doc of [
      { data },
      { "@type": "type.googleapis.com/google.pubsub.v1.PubsubMessage", attributes: {}, data },
    ]) {
      const file = readFindingsDocument(doc);
      assert.deepEqual(
        file.items.map((i) => [i.shape, read(i.payload).category]),
        [["pubsub-message", "Malware: Bad IP"]],
      );
    }
    // A finding with a field called data is not a message.
    assert.throws(() => readFindingsDocument({ data: "x", category: "c" }));
  });

  it("says what a message's data was when it is none of base64, JSON text or an object", () => {
    assert.throws(
      () => readFindingsDocument({ message: { data: 42 } }),
      /message\.data: a Pub\/Sub message whose data is a number; expected base64 text, JSON text or an object/,
    );
  });

  it("refuses an unknown shape with what was expected", () => {
    for (const doc of [{ data: [1] }, [{ id: 1 }], 42, { finding: "x" }]) {
      assert.throws(
        () => readFindingsDocument(doc),
        (e: unknown) =>
          e instanceof InvalidInputError &&
          /holds no SCC finding|is a number/.test(e.message) &&
          /expected a Pub\/Sub notification .* a ListFindings response/.test(e.message),
        JSON.stringify(doc),
      );
    }
    assert.throws(
      () => readFindingsText("{nope\n{also nope"),
      /neither one JSON document .* nor JSON Lines \(line 1/,
    );
  });
});

describe("enums as the proto's numbers", () => {
  // Adapted: the real SOAR finding (SA self-investigation, ACTIVE LOW, mute UNDEFINED, THREAT) with its enums as numbers.
  const [sample] = JSON.parse(real("soar-scc-update-finding-sa-self-investigation.json")) as Record<
    string,
    unknown
  >[];

  it("reads state 1, severity 4, mute 4, findingClass 1 of a v1 finding as ACTIVE, LOW, UNDEFINED, THREAT", () => {
    const f = read({ ...sample, state: 1, severity: 4, mute: 4, findingClass: 1 });
    assert.deepEqual([f.state, f.severity, f.mute, f.findingClass], ["ACTIVE", "LOW", "UNDEFINED", "THREAT"]);
    assert.equal(ingestDecision(f, defaults).action, "investigate");
    assert.ok(f.notes?.includes("finding.state 1 read as ACTIVE (the v1 proto's numbering)"));
  });

  it("reads mute 3 of a v2 finding (its name has /locations/) as UNDEFINED, and numeric strings too", () => {
    const f = read({
      ...sample,
      name: "organizations/1/sources/2/locations/global/findings/3",
      state: "1",
      mute: 3,
    });
    assert.deepEqual([f.state, f.mute], ["ACTIVE", "UNDEFINED"]);
  });

  it("keeps a number the proto does not define, and says so", () => {
    const f = read({ ...sample, severity: 9 });
    assert.equal(f.severity, "LOW", "falls back to the detectionPriority hint");
    assert.ok(f.notes?.some((n) => n.startsWith("finding.severity 9 is not a v1 proto number")));
  });

  it("takes the numbers from the official protos", () => {
    const protos = fromRoot(
      "node_modules",
      "@google-cloud",
      "security-center",
      "build",
      "protos",
      "google",
      "cloud",
      "securitycenter",
    );
    for (const version of ["v1", "v2"] as const) {
      const text = readFileSync(`${protos}/${version}/finding.proto`, "utf8");
      const message = text.slice(text.indexOf("message Finding {"));
      for (const [field, enumName] of [
        ["state", "State"],
        ["severity", "Severity"],
        ["mute", "Mute"],
        ["findingClass", "FindingClass"],
      ] as const) {
        const body = message.slice(message.indexOf(`enum ${enumName} {`));
        const block = body.slice(0, body.indexOf("}"));
        const fromProto = [...block.matchAll(/^\s*([A-Z_]+) = (\d+);/gm)].map((m) => [Number(m[2]), m[1]]);
        assert.deepEqual(
          FINDING_ENUMS[version][field].map(([n, s]) => [n, s]),
          fromProto,
          `${version} ${enumName}`,
        );
      }
    }
  });
});

describe("sourceProperties in its other serializations", () => {
  const notification = json("jorgecalo-etd-v2-gridtide-custom.json");
  const finding = notification.finding as Record<string, unknown>;
  const props = finding.sourceProperties as Record<string, unknown>;

  it("unpacks a key/value list, values plain or protobuf Value-wrapped, into its map", () => {
    const list = [
      { key: "campaign", value: { stringValue: props.campaign } },
      { key: "reference", value: props.reference },
      {
        key: "properties",
        value: {
          structValue: {
            fields: {
              ip: {
                listValue: { values: [{ stringValue: "130.94.6.228" }, { stringValue: "38.60.194.21" }] },
              },
            },
          },
        },
      },
    ];
    const f = read({ ...notification, finding: { ...finding, sourceProperties: list } });
    assert.deepEqual(f.sourceProperties.properties, { ip: ["130.94.6.228", "38.60.194.21"] });
    assert.equal(f.sourceProperties.campaign, props.campaign);
    assert.ok(f.notes?.includes("sourceProperties was a key/value list of 3; unpacked into its map"));
    assert.ok(
      findingIocs(f).some((i) => i.value === "130.94.6.228" && i.path === "indicator.ipAddresses[0]"),
    );
  });

  it("unpacks a protobuf Struct and a JSON string", () => {
    const struct = read({
      ...notification,
      finding: { ...finding, sourceProperties: { fields: { campaign: { stringValue: "x" } } } },
    });
    assert.deepEqual(struct.sourceProperties, { campaign: "x" });
    const string = read({
      ...notification,
      finding: { ...finding, sourceProperties: JSON.stringify(props) },
    });
    assert.deepEqual(string.sourceProperties, props);
  });
});

describe("a BigQuery export row (adapted envelope: the real SHA finding in the export's snake_case columns)", () => {
  it("reads snake_case fields, the JSON-string source_properties and BigQuery's timestamps", () => {
    const { finding, resource } = json("jorgecalo-sha-private-google-access.json") as {
      finding: Record<string, unknown>;
      resource: Record<string, unknown>;
    };
    const row = {
      source_id: "1111111111111111111",
      finding_id: "eeb01152d2d9fdaf3a0ff6e856338e26",
      event_time: "2021-02-13 23:00:06.039628 UTC",
      finding: {
        name: finding.name,
        parent: finding.parent,
        resource_name: finding.resourceName,
        state: finding.state,
        category: finding.category,
        external_uri: finding.externalUri,
        source_properties: JSON.stringify(finding.sourceProperties),
        event_time: "2021-02-13 23:00:06.039628 UTC",
        create_time: "2021-02-13 23:00:06.534 UTC",
        severity: finding.severity,
      },
      resource: {
        name: resource.name,
        project_name: resource.project,
        project_display_name: resource.projectDisplayName,
      },
    };
    const [item] = readFindingsDocument(row).items;
    assert.equal(item?.shape, "export-row");
    const f = read(item?.payload);
    assert.equal(f.category, "PRIVATE_GOOGLE_ACCESS_DISABLED");
    assert.equal(f.eventTime, "2021-02-13T23:00:06.039628Z");
    assert.equal(f.resource.name, resource.name);
    assert.equal(f.resource.projectDisplayName, "example-project-01");
    assert.equal(f.sourceProperties.ScannerName, "SUBNETWORK_SCANNER");
    assert.equal(f.severity, "HIGH");
  });
});
