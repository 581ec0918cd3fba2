import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeIntent } from "../../../functions/src/offline-model/describe.js";
import { decodeIntent } from "../../../functions/src/offline-model/step-text.js";

/**
 * A step's sentence is what a step executor model reads when the offline planner's plan is run
 * by Gemini (a planner that fell back): it must say what the machine-readable tail asks.
 */
const w = { start: ["2025-11-11T00:00:00Z"], end: ["2025-11-11T12:00:00Z"] };

describe("describeIntent", () => {
  it("a VM's own lookups are described as the VM's, not as the finding's domains", () => {
    const text = describeIntent({ kind: "dns", params: { instance: ["worker-3"], ...w } });
    assert.match(text, /DNS queries instance worker-3 made/);
    assert.doesNotMatch(text, /finding's domains/);
    assert.deepEqual(decodeIntent(text)?.params.instance, ["worker-3"]);
  });

  it("lookups of named domains and of an address keep their own sentences", () => {
    assert.match(
      describeIntent({ kind: "dns", params: { domains: ["pool.example"], instance: ["worker-3"], ...w } }),
      /DNS queries for pool\.example/,
    );
    assert.match(
      describeIntent({ kind: "dns", params: { ips: ["198.51.100.7"], ...w } }),
      /answered with 198\.51\.100\.7/,
    );
  });

  it("who connected to a VM is described as inbound", () => {
    assert.match(
      describeIntent({ kind: "ingress", params: { instance: ["worker-3"], ...w } }),
      /who connected to instance worker-3/,
    );
  });
});
