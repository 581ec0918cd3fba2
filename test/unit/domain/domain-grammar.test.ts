import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findDomains, isDomainName, normalizeHost } from "../../../functions/src/domain/domain-grammar.js";
import { extractIocs } from "../../../functions/src/domain/ioc.js";
import { defangText } from "../../../functions/src/notify/defang.js";

const domainsIn = (text: string) =>
  extractIocs(text)
    .filter((i) => i.type === "domain")
    .map((i) => i.value);

describe("domain grammar: the public suffix list decides", () => {
  // Free TLDs favoured by mining pools and phishing kits, which the old hand-written list lacked.
  for (const host of ["pool.evil.icu", "a.ml", "b.ga", "c.cf", "d.gq", "e.tk", "f.cyou", "g.zip"]) {
    it(`${host} is a domain`, () => assert.equal(isDomainName(host), true));
  }
  for (const host of [
    "config.json",
    "compute.instances.insert",
    "main.go",
    "a.b.c",
    "host.local",
    "localhost",
    "1.2.3.4",
  ]) {
    it(`${host} is not a domain`, () => assert.equal(isDomainName(host), false));
  }

  it("takes IDN and punycode names", () => {
    assert.equal(isDomainName("пример.рф"), true);
    assert.equal(isDomainName("xn--e1afmkfd.xn--p1ai"), true);
    assert.equal(isDomainName("bücher.de"), true);
  });

  it("treats ideographic, fullwidth and halfwidth dots as dots", () => {
    assert.equal(normalizeHost("Evil。ICU"), "evil.icu");
    assert.equal(normalizeHost("evil．com"), "evil.com");
    assert.equal(normalizeHost("evil｡com"), "evil.com");
    assert.deepEqual(
      findDomains("a evil。icu b evil．com c").map((d) => d.value),
      ["evil。icu", "evil．com"],
    );
  });
});

describe("one grammar for extraction and defanging", () => {
  const samples = [
    "pool on xmr.evil.icu and a.ml, c2.tk, bad.ga, x.gq, y.cf",
    "idn пример.рф and xn--e1afmkfd.xn--p1ai",
    "fullwidth evil．com ideographic evil。icu",
    "method compute.instances.insert, file config.json, version 1.2.3, go main.go",
  ];
  for (const text of samples) {
    it(`every domain extracted from ${JSON.stringify(text)} is defanged, and nothing else is`, () => {
      const extracted = domainsIn(text);
      const defanged = defangText(text);
      // Defanging a name removes its last dot; a name still present whole was not defanged.
      for (const d of findDomains(text)) assert.ok(!defanged.includes(d.value), `${d.value} left clickable`);
      assert.equal((defanged.match(/\[\.\]/g) ?? []).length, extracted.length);
    });
  }

  it("extracts normalized, lowercased names", () => {
    assert.deepEqual(domainsIn("EVIL。ICU and Пример.РФ"), ["evil.icu", "пример.рф"]);
  });

  it("defangs IDN, punycode and look-alike dots, and leaves non-domains", () => {
    assert.equal(
      defangText("a xmr.evil.icu b пример.рф c xn--e1afmkfd.xn--p1ai d evil．com e config.json"),
      "a xmr.evil[.]icu b пример[.]рф c xn--e1afmkfd[.]xn--p1ai d evil[.]com e config.json",
    );
  });

  it("extracts an email only when its host is a domain", () => {
    const emails = extractIocs("bob@evil.icu and svc@host.local").filter((i) => i.type === "email");
    assert.deepEqual(
      emails.map((e) => e.value),
      ["bob@evil.icu"],
    );
    assert.equal(defangText("bob@evil.icu and svc@host.local"), "bob[@]evil[.]icu and svc@host.local");
  });
});
