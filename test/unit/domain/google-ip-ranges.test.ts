import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import cloud from "../../../functions/src/domain/finding/google-ip-ranges/cloud.json" with { type: "json" };
import { isGoogleServiceAddress } from "../../../functions/src/domain/finding/google-ip-ranges.js";
import { extractIocs, scanText } from "../../../functions/src/domain/ioc.js";

/** Google's own addresses come from the ranges Google publishes (goog.json minus cloud.json). */

const RUNS = { seed: 38_2, numRuns: 300 };

function ipv4At(prefix: string, offset: number): string {
  const [net = "", bits = "32"] = prefix.split("/");
  const base = net.split(".").reduce((n, o) => n * 256 + Number(o), 0);
  const size = 2 ** (32 - Number(bits));
  const n = base + (offset % size);
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
}

const cloudV4 = cloud.prefixes.flatMap((p) => ("ipv4Prefix" in p && p.ipv4Prefix ? [p.ipv4Prefix] : []));

describe("Google's published ranges", () => {
  it("an address in a Google Cloud customer range (cloud.json) is never a Google service address", () => {
    fc.assert(
      fc.property(fc.constantFrom(...cloudV4), fc.nat(), (prefix, offset) => {
        assert.equal(isGoogleServiceAddress(ipv4At(prefix, offset)), false);
      }),
      RUNS,
    );
  });

  it("the demo's Google front ends are Google service addresses; a documentation address is not", () => {
    for (const ip of ["142.251.32.10", "216.239.32.116", "172.217.4.74"])
      assert.ok(isGoogleServiceAddress(ip), ip);
    assert.equal(isGoogleServiceAddress("203.0.113.88"), false);
  });

  it("a Google front end in a DNS answer is context with its rule, the pool beside it is an indicator", () => {
    const text = "oauth2.googleapis.com.\t300\tIN\ta\t142.251.32.10 xmr.pool-relay.top. 60 IN A 203.0.113.88";
    assert.ok(
      scanText(text).some((c) => c.value === "142.251.32.10" && c.excludedBy === "google-service-address"),
    );
    assert.deepEqual(
      extractIocs(text)
        .filter((i) => i.type === "ip")
        .map((i) => i.value),
      ["203.0.113.88"],
    );
  });
});
