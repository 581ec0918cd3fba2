import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  type Finding,
  normalizeNotification,
  parseNotification,
} from "../../../functions/src/domain/finding/finding.js";
import {
  FINDING_FIELDS,
  keyDeclaredKind,
  keyWords,
  SOURCE_PROPERTY_LAYOUTS,
} from "../../../functions/src/domain/finding/finding-field-meaning.js";
import { findingIocOccurrences } from "../../../functions/src/domain/finding/finding-iocs.js";

/**
 * Indicators are read where a field's meaning says they are (finding-field-meaning.ts), not by
 * walking every value and excluding by lists. The cases are the ones issue 38 found on a third
 * set of real payloads.
 */

const RUNS = { seed: 38_1, numRuns: 300 };

function finding(extra: Record<string, unknown>): Finding {
  return normalizeNotification(
    parseNotification({
      finding: {
        name: "organizations/1/sources/2/findings/3",
        category: "Malware: Bad IP",
        eventTime: "2026-01-01T00:00:00Z",
        ...extra,
      },
    }),
  );
}

const reported = (f: Finding) => findingIocOccurrences(f).iocs.map((i) => [i.type, i.value, i.path]);
const reasonFor = (f: Finding, value: string) =>
  findingIocOccurrences(f).excluded.find((e) => e.value === value)?.reason ?? "";

describe("indicators by field meaning: what issue 38 found reported", () => {
  it("a 32-hex sourceProperties.findingId is an identifier, not a hash; the flattened ETD address is an IP", () => {
    const f = finding({
      sourceProperties: { findingId: "6cc800d88324478aa80d2031794214a4", properties_ip_0: "80.82.64.214" },
    });
    assert.deepEqual(reported(f), [["ip", "80.82.64.214", "sourceProperties.properties_ip_0"]]);
    assert.match(reasonFor(f, "6cc800d88324478aa80d2031794214a4"), /^identifier:/);
  });

  it("Cloud Anomaly Detection: the organization's own VM addresses are the resource; the abuse's targets are indicators", () => {
    const f = finding({
      category: "outgoing_intrusion_attempt",
      sourceProperties: {
        vm_ips: "35.238.138.238",
        vm_host_and_zone_names: "db-1:us-central1-c",
        abuse_target_ips: "198.51.100.9",
      },
    });
    assert.deepEqual(reported(f), [["ip", "198.51.100.9", "sourceProperties.abuse_target_ips"]]);
    assert.match(reasonFor(f, "35.238.138.238"), /^resource:/);
  });

  it("an address the finding names as the caller's is the actor's, even in Google's service ranges; a peer there is not", () => {
    const f = finding({
      access: { callerIp: "8.8.8.8", principalEmail: "ci@p.iam.gserviceaccount.com" },
      sourceProperties: {
        properties: { serviceAccountGetsOwnIamPolicy: { callerIp: "8.8.4.4" } },
        remoteIp: "142.251.32.10",
      },
    });
    const ips = findingIocOccurrences(f)
      .iocs.filter((i) => i.type === "ip")
      .map((i) => [i.value, i.path]);
    assert.deepEqual(ips, [
      ["8.8.8.8", "access.callerIp"],
      ["8.8.4.4", "sourceProperties.properties.serviceAccountGetsOwnIamPolicy.callerIp"],
    ]);
    assert.match(reasonFor(f, "142.251.32.10"), /Google service address/);
  });

  it("a self-link with an [apiserver] placeholder is not a URL, and keeps its path and reason", () => {
    const f = finding({
      sourceProperties: { selfLink: "https://[apiserver]/api/v1/namespaces/default/pods/web" },
      indicator: { uris: ["https://[apiserver]/apis/rbac.authorization.k8s.io/v1/clusterroles/x"] },
    });
    assert.deepEqual(reported(f), []);
    const report = findingIocOccurrences(f);
    assert.ok(
      report.excluded.some((e) => e.path === "indicator.uris[0]" && /not a URL/.test(e.reason)),
      JSON.stringify(report.excluded),
    );
  });

  it("a domain inside prose or a policy text is not read; a key that declares a domain is", () => {
    const f = finding({
      sourceProperties: {
        policy: "package sra.filter\n# see the docs at openpolicyagent.org and\nexample-\nwrapped.com",
        properties: { domain: ["xmr.pool-relay.top"] },
      },
    });
    assert.deepEqual(reported(f), [
      ["domain", "xmr.pool-relay.top", "sourceProperties.properties.domain[0]"],
    ]);
  });

  it("Web Security Scanner: the library URL it names as the violating resource and its learn-more link are not indicators", () => {
    const f = finding({
      category: "OUTDATED_LIBRARY",
      sourceProperties: {
        finalUrl: "https://scanner-integration-gmail.appspot.com/angular/angular_body/1.1.5?q=test",
        outdatedLibrary: {
          libraryName: "angularjs",
          learnMoreUrls: [
            "https://github.com/angular/angular.js/commit/8f31f1ff43b673a24f84422d5c13d6312b2c4d94",
          ],
        },
        violatingResource: {
          resourceUrl: "https://ajax.googleapis.com/ajax/libs/angularjs/1.1.5/angular.js",
        },
      },
    });
    assert.deepEqual(reported(f), []);
    assert.match(
      reasonFor(f, "https://ajax.googleapis.com/ajax/libs/angularjs/1.1.5/angular.js"),
      /^resource: WSS/,
    );
    assert.match(
      reasonFor(f, "https://github.com/angular/angular.js/commit/8f31f1ff43b673a24f84422d5c13d6312b2c4d94"),
      /^reference: WSS/,
    );
  });

  it("a Finding field the reference names as an indicator is read even in the verbatim details", () => {
    const f = finding({
      processes: [
        {
          binary: { path: "/tmp/x" },
          libraries: [{ path: "/tmp/.lib/evil.so", sha256: "AB".repeat(32) }],
        },
      ],
    });
    assert.deepEqual(reported(f), [["hash", "ab".repeat(32), "processes[0].libraries[0].sha256"]]);
  });
});

describe("indicators by field meaning: invariants", () => {
  const declaring = new Set([
    "ip",
    "ips",
    "domain",
    "domains",
    "fqdn",
    "url",
    "urls",
    "uri",
    "uris",
    "sha256",
    "sha1",
    "md5",
    "hash",
    "hashes",
    "email",
    "emails",
    "member",
    "members",
    "principal",
    "principals",
    "address",
    "addresses",
  ]);
  const word = fc.stringMatching(/^[a-z]{2,9}$/).filter((w) => !declaring.has(w) && !w.endsWith("ip"));
  const silentKey = fc
    .array(word, { minLength: 1, maxLength: 3 })
    .map((ws) => ws.map((w, i) => (i === 0 ? w : w[0]?.toUpperCase() + w.slice(1))).join(""))
    .filter((k) => !(k in SOURCE_PROPERTY_LAYOUTS));
  const octet = fc.integer({ min: 1, max: 223 });
  const publicIp = fc
    .tuple(
      octet,
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 1, max: 254 }),
    )
    .map((p) => p.join("."));
  const indicatorShaped = fc.oneof(
    publicIp,
    fc.stringMatching(/^[a-f0-9]{64}$/),
    fc.constantFrom("evil.example.net", "https://evil.icu/gate.php", "pool.supportxmr.com"),
  );

  it("a sourceProperties key that declares no kind never yields an indicator, whatever its value looks like", () => {
    fc.assert(
      fc.property(silentKey, indicatorShaped, (key, value) => {
        assert.deepEqual(
          reported(finding({ sourceProperties: { [key]: value, nested: { [key]: [value] } } })),
          [],
        );
      }),
      RUNS,
    );
  });

  it("a key whose name declares an address yields each public non-Google address with its path", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("destIp", "srcIp", "callerIp", "ip", "sourceIpAddress", "properties_ip_0"),
        publicIp,
        (key, ip) => {
          const report = findingIocOccurrences(finding({ sourceProperties: { [key]: ip } }));
          const kept = report.iocs.some((i) => i.value === ip && i.path === `sourceProperties.${key}`);
          const set = [
            ...report.internalEndpoints.map((e) => e.value),
            ...report.excluded.map((e) => e.value),
          ];
          assert.ok(kept !== set.includes(ip), `${key}=${ip}: exactly one of indicator or internal/context`);
        },
      ),
      RUNS,
    );
  });

  it("a string under a plural key is a list: each item is read; under a singular key it is one value", () => {
    const documentation = fc
      .tuple(fc.constantFrom("198.51.100", "203.0.113"), fc.integer({ min: 1, max: 254 }))
      .map(([net, host]) => `${net}.${host}`);
    fc.assert(
      fc.property(
        fc.uniqueArray(documentation, { minLength: 2, maxLength: 5 }),
        fc.constantFrom(", ", ",", "; ", " ", "\n"),
        fc.constantFrom("abuse_target_ips", "remoteIps", "properties_ips", "ipAddresses"),
        (ips, separator, pluralKey) => {
          const listed = ips.join(separator);
          const plural = findingIocOccurrences(finding({ sourceProperties: { [pluralKey]: listed } }));
          assert.deepEqual(
            plural.iocs.map((i) => i.value).sort(),
            [...ips].sort(),
            `${pluralKey}=${JSON.stringify(listed)}`,
          );
          const singular = findingIocOccurrences(finding({ sourceProperties: { destIp: listed } }));
          assert.deepEqual(singular.iocs, [], `destIp=${JSON.stringify(listed)} is not one address`);
        },
      ),
      RUNS,
    );
  });

  it("the key grammar: the last word names the kind, ids declare none", () => {
    assert.deepEqual(keyWords("properties_bindingDeltas_0_member"), [
      "properties",
      "binding",
      "deltas",
      "member",
    ]);
    assert.equal(keyDeclaredKind("destIp"), "ip");
    assert.equal(keyDeclaredKind("externalMembers"), "principal");
    assert.equal(keyDeclaredKind("findingId"), undefined);
    assert.equal(keyDeclaredKind("reference"), "reference");
  });

  it("every row that yields indicators says which kind of indicator it holds", () => {
    for (const [path, row] of Object.entries({ ...FINDING_FIELDS, ...SOURCE_PROPERTY_LAYOUTS }))
      if (row.meaning === "indicator" || (row.meaning !== "context" && row.kind)) assert.ok(row.kind, path);
  });
});
