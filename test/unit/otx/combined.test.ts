import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CombinedThreatIntel } from "../../../functions/src/adapters/intel/combined.js";
import { IntelProviderError } from "../../../functions/src/adapters/intel/errors.js";
import { OtxThreatIntel } from "../../../functions/src/adapters/otx/threat-intel.js";
import { StixThreatIntel } from "../../../functions/src/adapters/stix/threat-intel.js";
import { ConfigError, InvalidInputError } from "../../../functions/src/domain/errors.js";
import type { IntelReport, ThreatIntel } from "../../../functions/src/ports/threat-intel.js";
import { OtxServer } from "./otx-server.js";

const BUNDLE = "examples/scenarios/cryptomining/intel/bundle.json";
const NOW = new Date("2025-06-11T03:00:00Z");

/** A provider with a fixed answer, to pin the merge rules one at a time. */
function fixed(name: string, report: Partial<IntelReport> | Error): ThreatIntel {
  return {
    name,
    lookup: async (indicator) => {
      if (report instanceof Error) throw report;
      return { indicator, verdict: "unknown", sources: [name], tags: [], related: [], ...report };
    },
  };
}

describe("CombinedThreatIntel over STIX and OTX", () => {
  let server: OtxServer;
  let combined: CombinedThreatIntel;
  before(async () => {
    server = await OtxServer.start();
    // OTX whitelists the mining pool the STIX feed lists: the feeds disagree.
    server.on("/api/v1/indicators/IPv4/203.0.113.88/general", { fixture: "ipv4-whitelisted.json" });
    server.on("/api/v1/indicators/IPv4/198.51.100.77/general", { status: 503, body: "unavailable" });
    combined = new CombinedThreatIntel([
      StixThreatIntel.fromFile(BUNDLE, { now: () => NOW }),
      new OtxThreatIntel({ apiKey: "k", baseUrl: server.url, now: () => NOW }),
    ]);
  });
  after(() => server.close());

  it("lets the worst verdict win and flags the conflict", async () => {
    const report = await combined.lookup({ type: "ip", value: "203.0.113.88" });
    assert.equal(combined.name, "stix:bundle.json+otx");
    assert.equal(report.verdict, "malicious");
    assert.ok(report.tags.includes("conflicting-intel"));
    assert.ok(report.tags.includes("otx-whitelisted"), "the benign side stays visible");
    assert.deepEqual(report.sources.slice(0, 3), ["stix:bundle.json", "Ferret Demo Threat Feed", "otx"]);
    assert.deepEqual(report.related, ["XMRig"]);
    assert.match(report.description ?? "", /^\[stix:bundle\.json\] Stratum endpoint.*\n\[otx\] OTX IPv4: /s);
  });

  it("answers from the providers that answered and names the one that failed", async () => {
    const report = await combined.lookup({ type: "ip", value: "198.51.100.77" });
    assert.equal(report.verdict, "suspicious");
    assert.ok(report.tags.includes("intel-unavailable:otx"));
  });
});

describe("CombinedThreatIntel merge rules", () => {
  const ip = { type: "ip" as const, value: "192.0.2.1" };

  it("prefers benign over unknown: one feed's silence does not hide another's knowledge", async () => {
    const report = await new CombinedThreatIntel([
      fixed("a", { verdict: "unknown" }),
      fixed("b", { verdict: "benign", tags: ["cdn"] }),
    ]).lookup(ip);
    assert.equal(report.verdict, "benign");
    assert.deepEqual(report.tags, ["cdn"]);
    assert.ok(!report.tags.includes("conflicting-intel"));
  });

  it("unions sources, tags and related without duplicates, and spans first and last seen", async () => {
    const report = await new CombinedThreatIntel([
      fixed("a", {
        verdict: "suspicious",
        tags: ["scanner", "Tor"],
        related: ["Mirai"],
        firstSeen: "2025-03-01T00:00:00.000Z",
        lastSeen: "2025-05-01T00:00:00.000Z",
      }),
      fixed("b", {
        verdict: "malicious",
        sources: ["b", "a"],
        tags: ["tor", "botnet"],
        related: ["mirai", "Gafgyt"],
        firstSeen: "2025-01-01T00:00:00.000Z",
        lastSeen: "2025-04-01T00:00:00.000Z",
      }),
    ]).lookup(ip);
    assert.equal(report.verdict, "malicious");
    assert.deepEqual(report.sources, ["b", "a"], "the deciding provider's sources first");
    assert.deepEqual(report.tags, ["tor", "botnet", "scanner"]);
    assert.deepEqual(report.related, ["mirai", "Gafgyt"]);
    assert.equal(report.firstSeen, "2025-01-01T00:00:00.000Z");
    assert.equal(report.lastSeen, "2025-05-01T00:00:00.000Z");
  });

  it("fails only when every provider fails, retryable when any failure is", async () => {
    const both = new CombinedThreatIntel([
      fixed("a", new InvalidInputError("bad")),
      fixed("b", new IntelProviderError("b", "HTTP 503", true)),
    ]);
    await assert.rejects(both.lookup(ip), (error: unknown) => {
      assert.ok(error instanceof IntelProviderError);
      assert.equal(error.retryable, true);
      assert.match(error.message, /a: bad; b: b: HTTP 503/);
      return true;
    });
    const neither = new CombinedThreatIntel([fixed("a", new InvalidInputError("bad"))]);
    await assert.rejects(
      neither.lookup(ip),
      (error: unknown) => (error as IntelProviderError).retryable === false,
    );
  });

  it("needs a provider", () => {
    assert.throws(() => new CombinedThreatIntel([]), ConfigError);
  });
});
