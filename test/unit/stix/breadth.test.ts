import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { breadthProblem } from "../../../functions/src/adapters/stix/breadth.js";
import { parsePattern } from "../../../functions/src/adapters/stix/pattern.js";

const problem = (pattern: string) => breadthProblem(parsePattern(pattern));

describe("patterns that match too broadly", () => {
  it("refuses LIKE patterns that name no domain", () => {
    assert.match(problem("[domain-name:value LIKE '%']") ?? "", /names no domain/);
    assert.match(problem("[domain-name:value LIKE '%.com']") ?? "", /names no domain/);
    assert.match(problem("[url:value LIKE 'http%']") ?? "", /names no domain/);
    assert.match(problem("[file:name LIKE '%.exe']") ?? "", /fixes too little/);
    assert.equal(problem("[domain-name:value LIKE '%.example.com']"), undefined);
    assert.equal(problem("[url:value LIKE 'http://evil.example.net/%']"), undefined);
  });

  it("refuses address ranges wider than a /12 (IPv4) or a /32 (IPv6), wherever the range is written", () => {
    assert.match(problem("[ipv4-addr:value ISSUBSET '0.0.0.0/0']") ?? "", /wider than a \/12/);
    assert.match(problem("[ipv4-addr:value = '10.0.0.0/8']") ?? "", /wider than a \/12/);
    assert.match(problem("[network-traffic:dst_ref.value IN ('192.0.2.1', '0.0.0.0/1')]") ?? "", /wider/);
    assert.match(problem("[ipv6-addr:value ISSUBSET '::/0']") ?? "", /wider than a \/32/);
    assert.match(problem("[ipv4-addr:value = '1.2.3.4/99']") ?? "", /not an address range/);
    assert.equal(problem("[ipv4-addr:value = '223.166.0.0/15']"), undefined);
    assert.equal(problem("[ipv6-addr:value ISSUBSET '2001:db8::/32']"), undefined);
  });

  it("looks into every branch, and leaves URLs with slashes and negations alone", () => {
    assert.match(
      problem("[ipv4-addr:value = '203.0.113.5'] OR [domain-name:value LIKE '%']") ?? "",
      /names no domain/,
    );
    assert.equal(problem("[url:value = 'https://gloverstech.com/tJWz9/']"), undefined);
    assert.equal(problem("[ipv4-addr:value NOT ISSUBSET '0.0.0.0/0']"), undefined);
  });
});
