import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { OtxThreatIntel } from "../../../functions/src/adapters/otx/threat-intel.js";
import { DeadlineExceededError } from "../../../functions/src/domain/errors.js";
import type { IntelReport, LookupOptions, ThreatIntel } from "../../../functions/src/ports/threat-intel.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";
import { createThreatIntelLookupTool } from "../../../functions/src/tools/threat-intel-lookup.js";
import { scenarioContext } from "../tools/context.js";
import { OtxServer } from "./otx-server.js";

const KEY = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

describe("threat-intel lookups honour the step's deadline", () => {
  let server: OtxServer;
  before(async () => {
    server = await OtxServer.start();
    server.on("/api/v1/indicators/IPv4/198.51.100.33/general", {
      fixture: "ipv4-clean.json",
      delayMs: 3_000,
    });
  });
  after(() => server.close());

  it("OTX aborts its request when the step's signal fires, and says it was the deadline", async () => {
    // The provider's own timeout (10 s) is far away: only the step's signal can end the wait.
    const otx = new OtxThreatIntel({ apiKey: KEY, baseUrl: server.url, timeoutMs: 10_000 });
    const controller = new AbortController();
    const deadline = new DeadlineExceededError("step deadline passed");
    setTimeout(() => controller.abort(deadline), 50);
    const started = performance.now();
    await assert.rejects(
      otx.lookup({ type: "ip", value: "198.51.100.33" }, { signal: controller.signal }),
      (error) => error === deadline,
    );
    assert.ok(performance.now() - started < 2_000, "the 3 s answer was not waited for");
  });

  it("the tool hands the signal to the provider and asks nothing once it has fired", async () => {
    const seen: Array<LookupOptions | undefined> = [];
    const intel: ThreatIntel = {
      name: "recording",
      lookup: async (indicator, options): Promise<IntelReport> => {
        seen.push(options);
        return { indicator, verdict: "unknown", sources: [], tags: [], related: [] };
      },
    };
    const tools = createToolRegistry([createThreatIntelLookupTool(intel)]);
    const controller = new AbortController();
    const args = { indicators: [{ type: "ip", value: "198.51.100.33" }] };
    await tools.run("threat_intel_lookup", args, { ...scenarioContext(), signal: controller.signal });
    assert.equal(seen[0]?.signal, controller.signal);

    controller.abort(new DeadlineExceededError("step deadline passed"));
    const out = await tools.run("threat_intel_lookup", args, {
      ...scenarioContext(),
      signal: controller.signal,
    });
    assert.equal(out.ok, false);
    assert.equal(seen.length, 1, "no lookup after the deadline");
  });
});
