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
    const sameObject = parsePattern("[file:hashes.MD5 = 'aa' AND file:name = 'x.exe']");
    assert.equal(patternMatches(sameObject, { type: "hash", value: "aa" }), false);
  });

  it("matches a hash under any algorithm name, case-insensitively", () => {
    const hash = { type: "hash" as const, value: normalizeObservable("hash", "ABCDEF") };
    assert.equal(patternMatches(parsePattern("[file:hashes.'SHA-256' = 'abcdef']"), hash), true);
    assert.equal(patternMatches(parsePattern("[file:hashes.MD5 = 'ABCDEF']"), hash), true);
    assert.equal(patternMatches(parsePattern("[file:name = 'abcdef']"), hash), false);
  });
});
