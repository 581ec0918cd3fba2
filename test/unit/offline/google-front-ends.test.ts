import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isGoogleServiceAddress } from "../../../functions/src/domain/finding/google-ip-ranges.js";
import { investigate } from "./support/harness.js";
import { openScenario } from "./support/tools.js";

/**
 * The bundled cryptomining scenario's VMs resolve and call Google APIs (oauth2, bigquery,
 * storage) all along; those front-end addresses are in Google's published service ranges and
 * must not reach the conclusion's IOCs, while the pool's address does.
 */
describe("the cryptomining demo's conclusion", () => {
  it("lists no address in Google's published service ranges among its IOCs, and keeps the pool", async () => {
    const { finding, tools } = await openScenario("examples/scenarios/cryptomining");
    try {
      const { conclusion } = await investigate(finding, tools);
      const ips = conclusion.iocs.filter((i) => i.type === "ip").map((i) => i.value);
      assert.deepEqual(
        ips.filter((ip) => isGoogleServiceAddress(ip)),
        [],
        `Google front ends among ${ips.join(", ")}`,
      );
      assert.ok(ips.includes("203.0.113.88"), `the pool is missing from ${ips.join(", ")}`);
    } finally {
      await tools.close();
    }
  });
});
