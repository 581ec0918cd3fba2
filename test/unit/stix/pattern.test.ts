import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeObservable, patternMatches } from "../../../functions/src/adapters/stix/observable.js";
import {
  comparisonsOf,
  PatternSyntaxError,
  parsePattern,
} from "../../../functions/src/adapters/stix/pattern.js";

const ip = (value: string) => ({ type: "ip" as const, value: normalizeObservable("ip", value) });

describe("parsePattern", () => {
  it("reads a single comparison", () => {
    assert.deepEqual(parsePattern("[ipv4-addr:value = '203.0.113.5']"), {
      kind: "comparison",
      objectType: "ipv4-addr",
      path: ["value"],
      negated: false,
      operator: "=",
      values: ["203.0.113.5"],
    });
  });

  it("reads quoted hash names, IN lists, OR/AND nesting and qualifiers", () => {
    const node = parsePattern(
      "([file:hashes.'SHA-256' = 'AB12' OR file:hashes.MD5 IN ('c0ffee', 'beef')] AND [domain-name:value = 'x.example.com']) WITHIN 300 SECONDS",
    );
    assert.equal(node.kind, "all_observations");
    const comparisons = comparisonsOf(node);
    assert.deepEqual(
      comparisons.map((c) => [c.objectType, c.path.join("/"), c.operator, c.values.length]),
      [
        ["file", "hashes/SHA-256", "=", 1],
        ["file", "hashes/MD5", "IN", 2],
        ["domain-name", "value", "=", 1],
      ],
    );
  });

  it("refuses what it cannot read", () => {
    assert.throws(() => parsePattern("[ipv4-addr:value = '1.2.3.4"), PatternSyntaxError);
    assert.throws(() => parsePattern("ipv4-addr:value = '1.2.3.4'"), PatternSyntaxError);
    assert.throws(() => parsePattern("[ipv4-addr:value ~ '1.2.3.4']"), PatternSyntaxError);
  });
});

describe("patternMatches for one looked-up observable", () => {
  it("matches exact values, OR alternatives and CIDR subsets", () => {
    assert.equal(patternMatches(parsePattern("[ipv4-addr:value = '203.0.113.5']"), ip("203.0.113.5")), true);
    assert.equal(patternMatches(parsePattern("[ipv4-addr:value = '203.0.113.5']"), ip("203.0.113.6")), false);
    assert.equal(
      patternMatches(
        parsePattern("[ipv4-addr:value = '192.0.2.1'] OR [ipv4-addr:value = '203.0.113.5']"),
        ip("203.0.113.5"),
      ),
      true,
    );
    assert.equal(
      patternMatches(parsePattern("[ipv4-addr:value ISSUBSET '198.51.100.0/24']"), ip("198.51.100.77")),
      true,
    );
    assert.equal(
      patternMatches(parsePattern("[ipv4-addr:value ISSUBSET '198.51.100.0/25']"), ip("198.51.100.200")),
      false,
    );
    assert.equal(
      patternMatches(parsePattern("[network-traffic:dst_ref.value = '203.0.113.5']"), ip("203.0.113.5")),
      true,
    );
  });

  it("compares domains case-insensitively without the trailing dot, and supports LIKE", () => {
    const domain = { type: "domain" as const, value: normalizeObservable("domain", "Pool.Example.COM.") };
    assert.equal(patternMatches(parsePattern("[domain-name:value = 'pool.example.com']"), domain), true);
    assert.equal(patternMatches(parsePattern("[domain-name:value LIKE '%.example.com']"), domain), true);
    assert.equal(patternMatches(parsePattern("[domain-name:value LIKE 'example.%']"), domain), false);
  });

  it("never matches negations, regexes, or an AND that needs a second observable", () => {
    assert.equal(patternMatches(parsePattern("[ipv4-addr:value != '192.0.2.1']"), ip("203.0.113.5")), false);
    assert.equal(
      patternMatches(parsePattern("[domain-name:value MATCHES '^(a+)+$']"), {
        type: "domain",
        value: "aaaa",
      }),
      false,
    );
    const both = parsePattern("[ipv4-addr:value = '203.0.113.5'] AND [domain-name:value = 'x.example.com']");
    assert.equal(patternMatches(both, ip("203.0.113.5")), false);
  });

  it("matches one object described by an AND (MISP) when the value is one of its identifying properties", () => {
    const misp = parsePattern(
      "[file:hashes.MD5 = '8764605c6f388c89096b534d33565802' AND file:hashes.'SHA-1' = '46aba99aa7158e4609aaa72b50990842fd22ae86' AND file:name = 'oui']",
    );
    const hash = (value: string) => ({ type: "hash" as const, value: normalizeObservable("hash", value) });
    assert.equal(patternMatches(misp, hash("8764605C6F388C89096B534D33565802")), true);
    assert.equal(patternMatches(misp, hash("46aba99aa7158e4609aaa72b50990842fd22ae86")), true);
    // Same algorithm (length), other value: a different file.
    assert.equal(patternMatches(misp, hash("0000605c6f388c89096b534d33565802")), false);
    // A SHA-256 the object does not list is not a match either.
    assert.equal(patternMatches(misp, hash("e".repeat(64))), false);
    // Comparisons the value cannot be judged by never make a match on their own.
    assert.equal(patternMatches(parsePattern("[file:name = 'oui' AND file:size = 35]"), hash("aa")), false);
  });

  it("an AND over one object is contradicted by a second comparison on the same property", () => {
    const both = parsePattern("[ipv4-addr:value = '203.0.113.5' AND ipv4-addr:value = '203.0.113.6']");
    assert.equal(patternMatches(both, ip("203.0.113.5")), false);
  });

  it("reads MISP's domain-ip object for both the domain and the address", () => {
    const domainIp = parsePattern(
      "[domain-name:value = 'circl.lu' AND domain-name:resolves_to_refs[*].value = '149.13.33.14']",
    );
    assert.equal(patternMatches(domainIp, { type: "domain", value: "circl.lu" }), true);
    assert.equal(patternMatches(domainIp, ip("149.13.33.14")), true);
    assert.equal(patternMatches(domainIp, ip("149.13.33.15")), false);
    assert.equal(patternMatches(domainIp, { type: "domain", value: "example.lu" }), false);
  });

  it("treats an address value written as a range as the range, IPv4 and IPv6", () => {
    assert.equal(
      patternMatches(parsePattern("[ipv4-addr:value = '223.166.0.0/15']"), ip("223.167.200.1")),
      true,
    );
    assert.equal(
      patternMatches(parsePattern("[ipv4-addr:value = '223.166.0.0/15']"), ip("223.168.0.1")),
      false,
    );
    assert.equal(
      patternMatches(parsePattern("[ipv6-addr:value ISSUBSET '2001:db8:abcd::/48']"), ip("2001:DB8:ABCD::1")),
      true,
    );
    assert.equal(
      patternMatches(parsePattern("[ipv6-addr:value = '2001:db8:abcd::/48']"), ip("2001:db8:abce::1")),
      false,
    );
    assert.equal(patternMatches(parsePattern("[ipv4-addr:value = '10.0.0.0/33']"), ip("10.0.0.1")), false);
  });

  it("never matches through a negation, even inside an AND", () => {
    const negated = parsePattern("[ipv4-addr:value = '203.0.113.5' AND ipv4-addr:value NOT = '203.0.113.5']");
    assert.equal(patternMatches(negated, ip("203.0.113.5")), false);
    assert.equal(
      patternMatches(parsePattern("[ipv4-addr:value NOT = '192.0.2.1']"), ip("203.0.113.5")),
      false,
    );
  });

  it("matches a hash under any algorithm name, case-insensitively", () => {
    const hash = { type: "hash" as const, value: normalizeObservable("hash", "ABCDEF") };
    assert.equal(patternMatches(parsePattern("[file:hashes.'SHA-256' = 'abcdef']"), hash), true);
    assert.equal(patternMatches(parsePattern("[file:hashes.MD5 = 'ABCDEF']"), hash), true);
    assert.equal(patternMatches(parsePattern("[file:name = 'abcdef']"), hash), false);
  });
});
