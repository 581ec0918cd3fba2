import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StixThreatIntel } from "../../../functions/src/adapters/stix/threat-intel.js";
import type { IocType } from "../../../functions/src/domain/ioc.js";

const DIR = "test/fixtures/real/stix";
const NOW = () => new Date("2025-06-01T00:00:00Z");
const load = (file: string) => StixThreatIntel.fromFile(`${DIR}/${file}`, { now: NOW });
const verdict = async (intel: StixThreatIntel, type: IocType, value: string) =>
  (await intel.lookup({ type, value })).verdict;

describe("real public STIX bundles", () => {
  it("loads every bundle, STIX 2.0 and 2.1, and counts what it can use", () => {
    const expected: Array<[string, string, number]> = [
      ["oasis-indicator-for-c2-ip-address.json", "2.1", 1],
      ["oasis-indicators-for-C2-with-COA.json", "2.1", 2],
      ["oasis-malicious-email-indicator-with-attachment.json", "2.1", 2],
      ["oasis-apt1.json", "2.1", 12],
      ["oasis-poisonivy.json", "2.1", 25],
      ["unit42-pikabot-stix20.json", "2.0", 10],
      ["unit42-hellokitty-stix20.json", "2.0", 11],
      ["misp-test_objects_collection_stix21.json", "2.1", 3],
      ["misp-test_objects_collection_stix20.json", "2.0", 3],
      ["misp-test_attributes_collection_stix21.json", "2.1", 3],
      ["misp-test_event1_stix20.json", "2.0", 1],
      ["misp-test_event2_stix21.json", "2.1", 2],
    ];
    for (const [file, spec, indicators] of expected) {
      const stats = load(file).stats();
      assert.deepEqual(
        [file, stats.specVersion, stats.indicators, stats.skipped],
        [file, spec, indicators, []],
      );
    }
  });

  it("APT1 (OASIS): netblocks written as ipv4-addr:value = '<CIDR>', domains and MD5s", async () => {
    const intel = load("oasis-apt1.json");
    const inRange = await intel.lookup({ type: "ip", value: "223.167.10.20" });
    assert.equal(inRange.verdict, "malicious");
    assert.deepEqual(inRange.related, ["HUC Packet Transmit Tool (HTRAN)"]);
    assert.equal(await verdict(intel, "ip", "223.168.0.1"), "unknown");
    const domain = await intel.lookup({ type: "domain", value: "HUGESOFT.org." });
    assert.equal(domain.verdict, "malicious");
    assert.deepEqual(domain.related, ["Ugly Gorilla"]);
    assert.equal(await verdict(intel, "hash", "001DD76872D80801692FF942308C64E6"), "malicious");
  });

  it("Poison Ivy (OASIS): one side of an OR across domains and addresses", async () => {
    const intel = load("oasis-poisonivy.json");
    const ip = await intel.lookup({ type: "ip", value: "60.10.1.120" });
    assert.equal(ip.verdict, "malicious");
    assert.ok(ip.related.includes("menuPass"));
    assert.equal(await verdict(intel, "domain", "sh.chromeenter.com"), "malicious");
    assert.equal(await verdict(intel, "ip", "60.10.1.122"), "unknown");
  });

  it("OASIS idioms: a C2 address and a hash tied to Poison Ivy by its producer", async () => {
    assert.equal(
      await verdict(load("oasis-indicator-for-c2-ip-address.json"), "ip", "10.0.0.0"),
      "malicious",
    );
    const coa = load("oasis-indicators-for-C2-with-COA.json");
    const hash = await coa.lookup({
      type: "hash",
      value: "ef537f25c895bfa782526529a9b63d97aa631564d5d789c2b765448c8635fb6c",
    });
    assert.equal(hash.verdict, "malicious");
    assert.deepEqual(hash.related, ["Poison Ivy"]);
    assert.ok(hash.sources.includes("The MITRE Corporation - DHS Support Team"));
  });

  it("Unit 42 playbooks (STIX 2.0): URLs and mixed-case SHA-256 hashes", async () => {
    const pikabot = load("unit42-pikabot-stix20.json");
    assert.equal(await verdict(pikabot, "url", "https://gloverstech.com/tJWz9/"), "malicious");
    assert.equal(await verdict(pikabot, "url", "https://gloverstech.com/tjwz9/"), "unknown");
    const kitty = load("unit42-hellokitty-stix20.json");
    const hash = await kitty.lookup({
      type: "hash",
      value: "ca607e431062ee49a21d69d722750e5edbd8ffabcb54fa92b231814101756041",
    });
    assert.equal(hash.verdict, "malicious");
    assert.deepEqual(hash.related, ["Campaign 1 - HelloKitty Linux", "Hello Kitty"]);
  });

  for (const file of [
    "misp-test_objects_collection_stix21.json",
    "misp-test_objects_collection_stix20.json",
  ]) {
    it(`MISP objects (${file}): each hash of a file object, and the domain-ip pair, match alone`, async () => {
      const intel = load(file);
      for (const hash of [
        "8764605c6f388c89096b534d33565802",
        "46aba99aa7158e4609aaa72b50990842fd22ae86",
        "ec5aedf5ecc6bdadd4120932170d1b10f6cfa175cfda22951dfd882928ab279b",
      ]) {
        // MISP's labels carry no intent (misp:name="file"), so a listing is suspicious.
        assert.equal(await verdict(intel, "hash", hash), "suspicious", hash);
      }
      assert.equal(await verdict(intel, "hash", "1764605c6f388c89096b534d33565802"), "unknown");
      assert.equal(await verdict(intel, "domain", "circl.lu"), "suspicious");
      assert.equal(await verdict(intel, "ip", "149.13.33.14"), "suspicious");
    });
  }

  it("MISP attributes and events: domain, domain|ip, STIX 2.0 and 2.1", async () => {
    assert.equal(await verdict(load("misp-test_event1_stix20.json"), "domain", "circl.lu"), "suspicious");
    assert.equal(await verdict(load("misp-test_event2_stix21.json"), "ip", "149.13.33.14"), "suspicious");
    assert.equal(
      await verdict(load("misp-test_attributes_collection_stix21.json"), "ip", "149.13.33.14"),
      "suspicious",
    );
  });
});
