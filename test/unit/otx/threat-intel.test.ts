import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { IntelProviderError } from "../../../functions/src/adapters/intel/errors.js";
import { OtxThreatIntel } from "../../../functions/src/adapters/otx/threat-intel.js";
import { ConfigError, InvalidInputError } from "../../../functions/src/domain/errors.js";
import { OtxServer } from "./otx-server.js";

const KEY = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const NOW = new Date("2025-06-11T03:00:00Z");
const HASH = "3f1a8e0c5b6d7e2f9a4c1b0d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f";
const general = (section: string, value: string) => `/api/v1/indicators/${section}/${value}/general`;

describe("OtxThreatIntel", () => {
  let server: OtxServer;
  let otx: OtxThreatIntel;
  before(async () => {
    server = await OtxServer.start();
    server
      .on(general("IPv4", "198.51.100.23"), { fixture: "ipv4-mining-pool.json" })
      .on(general("domain", "example.org"), { fixture: "domain-whitelisted.json" })
      .on(general("hostname", "cdn.files-mirror.example"), { fixture: "hostname-one-pulse.json" })
      .on(general("IPv4", "192.0.2.77"), { fixture: "ipv4-stale.json" })
      .on(general("IPv4", "203.0.113.50"), { fixture: "ipv4-many-pulses.json" })
      .on(general("IPv4", "203.0.113.9"), { fixture: "ipv4-clean.json" })
      .on(general("file", HASH), { fixture: "file-sha256.json" })
      .on(general("IPv4", "198.51.100.200"), { fixture: "ipv4-false-positive.json" })
      .on(general("IPv4", "198.51.100.29"), {
        status: 429,
        body: { detail: "Throttled" },
        headers: { "retry-after": "30" },
      })
      .on(general("IPv4", "198.51.100.30"), { status: 503, body: "<html>upstream unavailable</html>" })
      .on(general("IPv4", "198.51.100.31"), { status: 403, body: { detail: "Authentication required" } })
      .on(general("IPv4", "198.51.100.32"), { status: 400, body: { detail: "Invalid IP" } })
      .on(general("IPv4", "198.51.100.33"), { fixture: "ipv4-clean.json", delayMs: 2_000 })
      .on(general("IPv4", "198.51.100.34"), { body: "<html>not json" });
    // A local server answers in milliseconds, but a loaded 2-core machine can take longer than a
    // short timeout to run the first request; only the timeout test uses one (below).
    otx = new OtxThreatIntel({ apiKey: KEY, baseUrl: server.url, timeoutMs: 10_000, now: () => NOW });
  });
  after(() => server.close());

  const asked = () => server.requests.map((r) => r.path);

  it("calls an IP tied to a malware family by a current pulse malicious", async () => {
    const report = await otx.lookup({ type: "ip", value: "198.51.100.23" });
    assert.equal(report.verdict, "malicious");
    assert.deepEqual(report.related, ["XMRig", "CoinMiner"]);
    assert.deepEqual(report.tags.slice(0, 4), [
      "malware:XMRig",
      "malware:CoinMiner",
      "T1496",
      "cryptomining",
    ]);
    assert.ok(report.tags.includes("scanner"));
    assert.equal(report.sources[0], "otx");
    assert.equal(report.sources[1], "OTX pulse: Monero mining pools and Stratum relays (May 2025)");
    assert.equal(report.firstSeen, "2025-04-02T10:00:00.000Z");
    assert.equal(report.lastSeen, "2025-06-02T17:45:10.120Z");
    assert.match(report.description ?? "", /2 pulse\(s\), 2 current; 1 current pulse\(s\) tie it to malware/);
    const request = server.requests.find((r) => r.path === general("IPv4", "198.51.100.23"));
    assert.equal(request?.apiKey, KEY, "the key travels in X-OTX-API-KEY");
  });

  it("keeps a hostile pulse name on one bounded line, as data", async () => {
    const report = await otx.lookup({ type: "ip", value: "198.51.100.23" });
    const hostile = report.sources.find((s) => s.includes("Ignore previous instructions"));
    assert.ok(hostile);
    assert.ok(!hostile.includes("\n") && !hostile.includes("\u0007"), "control characters are gone");
    assert.ok(hostile.length <= 160);
    assert.ok(hostile.endsWith("…"));
  });

  it("calls a whitelisted domain benign whatever its pulses say", async () => {
    const report = await otx.lookup({ type: "domain", value: "Example.ORG." });
    assert.equal(report.verdict, "benign");
    assert.ok(report.tags.includes("otx-whitelisted"));
    assert.match(
      report.description ?? "",
      /whitelisted by OTX \(Akamai Popular Domain, Whitelisted domain\)/,
    );
    assert.match(report.description ?? "", /37 pulse\(s\) still name it/);
    assert.equal(report.indicator.value, "Example.ORG.", "the report names the indicator as asked");
    assert.ok(asked().includes(general("domain", "example.org")));
  });

  it("treats a community false-positive report like a whitelist", async () => {
    const report = await otx.lookup({ type: "ip", value: "198.51.100.200" });
    assert.equal(report.verdict, "benign");
    assert.match(report.description ?? "", /reported false positive/);
  });

  it("asks the hostname section for a subdomain; one pulse without context is suspicious", async () => {
    const report = await otx.lookup({ type: "domain", value: "cdn.files-mirror.example" });
    assert.equal(report.verdict, "suspicious");
    assert.deepEqual(report.related, []);
    assert.ok(asked().includes(general("hostname", "cdn.files-mirror.example")));
  });

  it("downgrades an address only stale pulses name to suspicious", async () => {
    const report = await otx.lookup({ type: "ip", value: "192.0.2.77" });
    assert.equal(report.verdict, "suspicious", "a 2021 Mirai pulse does not convict the address today");
    assert.ok(report.tags.includes("stale-intel"));
    assert.deepEqual(report.related, [], "families of stale pulses are not carried");
    assert.match(report.description ?? "", /only in pulses older than 365 days/);
  });

  it("calls three current pulses malicious even without malware context", async () => {
    const report = await otx.lookup({ type: "ip", value: "203.0.113.50" });
    assert.equal(report.verdict, "malicious");
    assert.match(report.description ?? "", /named in 3 current pulses/);
  });

  it("calls an indicator in no pulse unknown, not benign", async () => {
    const report = await otx.lookup({ type: "ip", value: "203.0.113.9" });
    assert.equal(report.verdict, "unknown");
    assert.deepEqual(report.sources, ["otx"]);
  });

  it("keeps old pulses for file hashes, which never change owner", async () => {
    const report = await otx.lookup({ type: "hash", value: HASH.toUpperCase() });
    assert.equal(report.verdict, "malicious");
    assert.deepEqual(report.related, ["Kinsing", "TeamTNT"]);
    assert.ok(asked().includes(general("file", HASH)));
  });

  it("percent-encodes a URL into one path segment; 404 means unknown", async () => {
    const url = "http://192.0.2.146/k.sh?x=1&y=../../pulses";
    const report = await otx.lookup({ type: "url", value: url });
    assert.equal(report.verdict, "unknown");
    assert.match(report.description ?? "", /no record/);
    assert.ok(asked().includes(general("url", encodeURIComponent(url))));
  });

  it("never sends private addresses, internal names, emails or principals", async () => {
    const before = server.requests.length;
    for (const indicator of [
      { type: "ip" as const, value: "10.128.0.7" },
      { type: "ip" as const, value: "169.254.169.254" },
      { type: "ip" as const, value: "fd00::1" },
      { type: "ip" as const, value: "::ffff:192.168.1.4" },
      { type: "domain" as const, value: "metadata.google.internal" },
      { type: "email" as const, value: "alice@example.com" },
      { type: "principal" as const, value: "sa@p.iam.gserviceaccount.com" },
    ]) {
      const report = await otx.lookup(indicator);
      assert.equal(report.verdict, "unknown", indicator.value);
      assert.match(report.description ?? "", /not sent to OTX|no lookup/);
    }
    assert.equal(server.requests.length, before);
  });

  it("refuses malformed indicators before any request", async () => {
    const before = server.requests.length;
    await assert.rejects(otx.lookup({ type: "ip", value: "999.1.1.1" }), InvalidInputError);
    await assert.rejects(otx.lookup({ type: "hash", value: "abc" }), InvalidInputError);
    await assert.rejects(otx.lookup({ type: "url", value: "javascript:alert(1)" }), InvalidInputError);
    assert.equal(server.requests.length, before);
  });

  it("maps HTTP failures to errors that say whether a retry helps", async () => {
    await assert.rejects(otx.lookup({ type: "ip", value: "198.51.100.29" }), (error: unknown) => {
      assert.ok(error instanceof IntelProviderError);
      assert.equal(error.retryable, true);
      assert.equal(error.details?.retryAfterSeconds, 30);
      return true;
    });
    await assert.rejects(otx.lookup({ type: "ip", value: "198.51.100.30" }), (error: unknown) => {
      assert.ok(error instanceof IntelProviderError);
      assert.equal(error.retryable, true);
      assert.match(error.message, /HTTP 503/);
      return true;
    });
    await assert.rejects(otx.lookup({ type: "ip", value: "198.51.100.31" }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.retryable, false);
      return true;
    });
    await assert.rejects(otx.lookup({ type: "ip", value: "198.51.100.32" }), (error: unknown) => {
      assert.ok(error instanceof InvalidInputError);
      assert.equal(error.retryable, false);
      return true;
    });
    await assert.rejects(otx.lookup({ type: "ip", value: "198.51.100.34" }), (error: unknown) => {
      assert.ok(error instanceof IntelProviderError);
      assert.equal(error.retryable, true);
      return true;
    });
  });

  it("gives up after its timeout with a retryable error", async () => {
    const impatient = new OtxThreatIntel({
      apiKey: KEY,
      baseUrl: server.url,
      timeoutMs: 300,
      now: () => NOW,
    });
    const started = Date.now();
    await assert.rejects(impatient.lookup({ type: "ip", value: "198.51.100.33" }), (error: unknown) => {
      assert.ok(error instanceof IntelProviderError);
      assert.equal(error.retryable, true);
      assert.match(error.message, /no answer within 300 ms/);
      return true;
    });
    assert.ok(Date.now() - started < 1_500);
  });

  it("answers a repeated lookup from its cache", async () => {
    const count = () => server.requests.filter((r) => r.path === general("IPv4", "203.0.113.50")).length;
    const before = count();
    await otx.lookup({ type: "ip", value: "203.0.113.50" });
    await otx.lookup({ type: "ip", value: "203.0.113.50" });
    assert.equal(count() - before, 0, "already looked up above");
    const fresh = new OtxThreatIntel({ apiKey: KEY, baseUrl: server.url, now: () => NOW });
    await fresh.lookup({ type: "ip", value: "203.0.113.50" });
    await fresh.lookup({ type: "ip", value: "203.0.113.50" });
    assert.equal(count() - before, 1);
  });
});
