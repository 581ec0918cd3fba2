import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  type Finding,
  findingIocs,
  normalizeNotification,
  parseNotification,
} from "../../../functions/src/domain/finding/finding.js";
import { readFindingsText } from "../../../functions/src/domain/finding/finding-file.js";
import { findingIocOccurrences } from "../../../functions/src/domain/finding/finding-iocs.js";
import { extractIocs, scanText } from "../../../functions/src/domain/ioc.js";
import type { JsonValue } from "../../../functions/src/domain/json.js";
import { logRowIocs } from "../../../functions/src/domain/log-row-iocs.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";

/**
 * Each typing rule of domain/ioc-rules.ts held to a real sample (test/fixtures/real, sources in
 * the PROVENANCE files): the value the rule makes context is in the sample, the rule names it,
 * and it is not among the IOCs. Dropping a rule makes its test fail.
 */
function findings(file: string): Finding[] {
  const text = readFileSync(fromRoot("test", "fixtures", "real", "scc", file), "utf8");
  return readFindingsText(text, file).items.map((i) => normalizeNotification(parseNotification(i.payload)));
}

/** The reasons the finding's reader gives for listing `value` as context. */
function contextReasons(f: Finding, value: string): string[] {
  return findingIocOccurrences(f)
    .excluded.filter((e) => e.value.toLowerCase() === value.toLowerCase())
    .map((e) => e.reason);
}

function reported(f: Finding): string[] {
  return findingIocs(f).map((i) => i.value.toLowerCase());
}

const [xsoar] = findings("xsoar-list-findings-v2-response.json") as [Finding];

describe("context by field meaning, each on a real sample", () => {
  // [what the field is, sample, the value, the reason it is listed with (undefined: not listed, it
  // sits inside text of a field that holds no indicator)]
  const cases: [string, Finding, string, RegExp | undefined][] = [
    // GRIDTIDE sample: sourceProperties.reference is a Google Cloud blog link.
    [
      "a key that names a reference",
      findings("jorgecalo-etd-v2-gridtide-custom.json")[0] as Finding,
      "https://cloud.google.com/blog/topics/threat-intelligence/disrupting-gridtide-global-espionage-campaign",
      /^reference:/,
    ],
    // SecOps SOAR sample: the caller IP was redacted before publication.
    [
      "a masked address in an address field",
      findings("soar-scc-update-finding-sa-self-investigation.json")[0] as Finding,
      "52.39.xxx.xxx",
      /masked/,
    ],
    // SecOps SOAR sample: muteAnnotation "Unmuted by olivierba@google.com".
    [
      "mute bookkeeping",
      findings("soar-scc-asset-vulnerabilities.json")[0] as Finding,
      "olivierba@google.com",
      undefined,
    ],
    // XSOAR ListFindings v2 sample: relatedFindings name a finding whose id is 32 hex digits.
    ["an id inside a finding name", xsoar, "aa11bb22cc33dd44ee55ff6677889900", undefined],
    [
      "the OS's own library",
      xsoar,
      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      /library the OS ships/,
    ],
    // containers[].uri "gcr.io/…/web-app@sha256:…": the registry host is part of an image reference.
    ["an image reference", xsoar, "gcr.io", undefined],
    ["a log name", xsoar, "cloudaudit.googleapis.com", undefined],
    ["the application a scanner tested", xsoar, "https://app.example.com/login", /^resource:/],
    [
      "Web Security Scanner's scanned URL",
      findings("secops-vulnerability-wss-clear-text-password.json")[0] as Finding,
      "http://198.51.100.1:0000/login.jsp?searchString=",
      /^resource: WSS/,
    ],
  ];
  for (const [what, f, value, reason] of cases) {
    it(`${what}: ${value.slice(0, 60)} is context, not an IOC`, () => {
      assert.ok(!reported(f).includes(value.toLowerCase()), `${value} reported`);
      const reasons = contextReasons(f, value);
      if (reason)
        assert.ok(
          reasons.some((r) => reason.test(r)),
          `${value}: ${reasons.join(", ")}`,
        );
      else assert.deepEqual(reasons, []);
    });
  }

  it("non-network-uri: a bq:// dataset URI is a resource, not a URL", () => {
    const report = findingIocOccurrences(xsoar);
    assert.ok(report.resources.some((r) => r.name === "bq://prod-web-app-284002.ml_data.training"));
    assert.ok(!reported(xsoar).includes("bq://prod-web-app-284002.ml_data.training"));
  });

  it("private-address: an internal SSH brute-force source is an internal endpoint, never sent to intel", () => {
    const [brute] = findings("sra-etd-ssh-brute-force.json") as [Finding];
    const report = findingIocOccurrences(brute);
    assert.deepEqual(report.internalEndpoints.map((e) => e.value).sort(), ["10.200.0.2", "10.200.0.3"]);
    assert.deepEqual(report.iocs, []);
  });

  it("keeps the attacker's values of the same sample: binary and script hashes, the C2 domain and URL, acting and granted principals", () => {
    for (const value of [
      "3a7bd3e2360a3d9f9c5f8b1a2c4d6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f9",
      "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
      "malicious-c2.example.com",
      "http://malicious-c2.example.com/gate.php",
      "compute-sa@prod-web-app-284002.iam.gserviceaccount.com",
      "attacker@example.com",
      "admin@example.com",
    ])
      assert.ok(reported(xsoar).includes(value), value);
  });
});

describe("IOC typing rules in free text and log rows", () => {
  // A user agent from a public Cloud Audit Logs entry (search tool code index, file id 30281005016).
  const userAgent =
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36,gzip(gfe),gzip(gfe)";

  it("version-string: a browser version is never an address", () => {
    assert.deepEqual(extractIocs(userAgent), []);
    assert.ok(scanText(userAgent).some((c) => c.value === "130.0.0.0" && c.excludedBy === "version-string"));
    assert.deepEqual(extractIocs("Chrome/141.0.0.0 and build 10.2.3.4.5"), []);
    assert.deepEqual(extractIocs("caller 45.9.148.108"), [{ type: "ip", value: "45.9.148.108" }]);
  });

  it("api-identifier: a gcloud command after a product token is not a domain", () => {
    assert.deepEqual(
      extractIocs("google-cloud-sdk gcloud/450.0.0 command/gcloud.logging.read invocation-id/x"),
      [],
    );
    assert.deepEqual(extractIocs("resolved evil.icu"), [{ type: "domain", value: "evil.icu" }]);
  });

  it("log rows are read by key with the same rules: user agents, methods and log names are context", () => {
    const text = readFileSync(
      fromRoot(
        "test",
        "fixtures",
        "real",
        "logs",
        "storage-sink",
        "elastic-cloudresourcemanager-setiampolicy.jsonl",
      ),
      "utf8",
    );
    const rows = text
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as JsonValue);
    const iocs = logRowIocs(rows);
    const values = iocs.map((i) => i.value);
    assert.ok(values.includes("made-up-ci-account@project-id.iam.gserviceaccount.com"), values.join(", "));
    assert.ok(!values.some((v) => v.includes("googleapis.com")), values.join(", "));
    assert.ok(!values.some((v) => v.startsWith("gcloud.")), values.join(", "));
    const withUa = logRowIocs([
      {
        protopayload_auditlog: {
          requestMetadata: { callerIp: "223.123.89.68", callerSuppliedUserAgent: userAgent },
        },
      },
    ]);
    assert.deepEqual(withUa, [{ type: "ip", value: "223.123.89.68" }]);
  });

  it("service-account key owner: named only in the resource of a key finding, it is a principal IOC", () => {
    // The resource name format of a user-managed key (iam.googleapis.com); the finding carries no access block.
    const f = normalizeNotification(
      parseNotification({
        finding: {
          name: "organizations/1/sources/2/findings/3",
          category: "USER_MANAGED_SERVICE_ACCOUNT_KEY",
          eventTime: "2026-01-01T00:00:00Z",
          resourceName:
            "//iam.googleapis.com/projects/p1/serviceAccounts/ci-deployer@p1.iam.gserviceaccount.com/keys/0123abcd",
        },
        resource: {
          displayName: "projects/p1/serviceAccounts/ci-deployer@p1.iam.gserviceaccount.com/keys/0123abcd",
        },
      }),
    );
    assert.deepEqual(
      findingIocs(f).map((i) => [i.type, i.value]),
      [["principal", "ci-deployer@p1.iam.gserviceaccount.com"]],
    );
  });
});
