import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StixThreatIntel } from "../../../functions/src/adapters/stix/threat-intel.js";
import { ModelUnavailableError } from "../../../functions/src/domain/errors.js";
import type { IntelReport, ThreatIntel } from "../../../functions/src/ports/threat-intel.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";
import { createThreatIntelLookupTool } from "../../../functions/src/tools/threat-intel-lookup.js";
import { CRYPTO_BUNDLE, scenarioContext } from "./context.js";

const ctx = scenarioContext();
const registry = createToolRegistry([createThreatIntelLookupTool(StixThreatIntel.fromFile(CRYPTO_BUNDLE))]);

describe("threat_intel_lookup", () => {
  it("returns a report per distinct indicator and marks the harmful ones as IOCs", async () => {
    const out = await registry.run(
      "threat_intel_lookup",
      {
        indicators: [
          { type: "ip", value: "203.0.113.88" },
          { type: "domain", value: "xmr.pool-relay.top" },
          { type: "ip", value: "8.8.8.8" },
          { type: "ip", value: "203.0.113.88" },
        ],
      },
      ctx,
    );
    assert.equal(out.ok, true, out.summary);
    const reports = (out.data as { reports: Array<{ verdict: string; indicator: { value: string } }> })
      .reports;
    assert.deepEqual(
      reports.map((r) => [r.indicator.value, r.verdict]),
      [
        ["203.0.113.88", "malicious"],
        ["xmr.pool-relay.top", "malicious"],
        ["8.8.8.8", "unknown"],
      ],
    );
    assert.deepEqual(
      out.iocs?.map((i) => i.value),
      ["203.0.113.88", "xmr.pool-relay.top"],
    );
    assert.equal(out.iocs?.[0]?.context, "threat intel (stix:bundle.json): malicious, XMRig");
    assert.match(out.summary, /^3 looked up, 2 flagged: 203\.0\.113\.88 malicious \(XMRig\); /);
  });

  it("refuses more than 20 indicators", async () => {
    const indicators = Array.from({ length: 21 }, (_, i) => ({ type: "ip", value: `192.0.2.${i + 1}` }));
    const out = await registry.run("threat_intel_lookup", { indicators }, ctx);
    assert.equal(out.ok, false);
    assert.match(out.summary, /indicators: Too big/i);
  });

  it("keeps partial results when a provider fails for some indicators, and fails retryably when it fails for all", async () => {
    const flaky: ThreatIntel = {
      name: "flaky",
      async lookup(indicator): Promise<IntelReport> {
        if (indicator.value.startsWith("192.")) throw new ModelUnavailableError("provider rate limit");
        return { indicator, verdict: "unknown", sources: ["flaky"], tags: [], related: [] };
      },
    };
    const flakyRegistry = createToolRegistry([createThreatIntelLookupTool(flaky)]);
    const partial = await flakyRegistry.run(
      "threat_intel_lookup",
      {
        indicators: [
          { type: "ip", value: "192.0.2.1" },
          { type: "ip", value: "8.8.8.8" },
        ],
      },
      ctx,
    );
    assert.equal(partial.ok, true);
    assert.deepEqual((partial.data as { errors: unknown[] }).errors, [
      { type: "ip", value: "192.0.2.1", message: "provider rate limit", retryable: true },
    ]);
    const none = await flakyRegistry.run(
      "threat_intel_lookup",
      { indicators: [{ type: "ip", value: "192.0.2.1" }] },
      ctx,
    );
    assert.equal(none.ok, false);
    assert.deepEqual((none.data as { error: { retryable: boolean; code: string } }).error.retryable, true);
    assert.match(none.summary, /every lookup failed: provider rate limit/);
  });
});
