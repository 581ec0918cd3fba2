import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Ioc } from "../../../functions/src/domain/ioc.js";
import { defangIoc, defangText } from "../../../functions/src/notify/defang.js";

const SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

describe("defangIoc", () => {
  const table: Array<[Pick<Ioc, "type" | "value">, string]> = [
    [{ type: "ip", value: "1.2.3.4" }, "1.2.3[.]4"],
    [{ type: "ip", value: "2001:db8::1" }, "2001:db8::1"],
    [{ type: "domain", value: "evil.com" }, "evil[.]com"],
    [{ type: "domain", value: "a.b.evil.co.uk" }, "a.b.evil.co[.]uk"],
    [{ type: "domain", value: "evil.com." }, "evil[.]com"],
    [{ type: "url", value: "http://evil.com/x" }, "hxxp://evil[.]com/x"],
    [{ type: "url", value: "https://evil.com:8443/a?b=c.d" }, "hxxps://evil[.]com:8443/a?b=c.d"],
    [{ type: "url", value: "HTTPS://EVIL.COM/" }, "hxxps://EVIL[.]COM/"],
    [{ type: "url", value: "https://user@evil.com/login" }, "hxxps://user[@]evil[.]com/login"],
    [{ type: "url", value: "http://1.2.3.4/payload.sh" }, "hxxp://1.2.3[.]4/payload.sh"],
    // Issue 30: a Log4Shell probe's URL carries its callback in the query.
    [
      { type: "url", value: `https://shop.example.com/?x=\${jndi:ldap://203.0.113.45:1389/a}` },
      `hxxps://shop.example[.]com/?x=\${jndi:ldap://203.0.113[.]45:1389/a}`,
    ],
    [{ type: "url", value: "ftp://files.evil.com/a" }, "fxp://files.evil[.]com/a"],
    [{ type: "url", value: "evil.com/no-scheme" }, "evil[.]com/no-scheme"],
    [{ type: "email", value: "user@example.com" }, "user[@]example[.]com"],
    [{ type: "hash", value: SHA256 }, SHA256],
    [{ type: "hash", value: "d41d8cd98f00b204e9800998ecf8427e" }, "d41d8cd98f00b204e9800998ecf8427e"],
    [
      { type: "principal", value: "serviceAccount:sa@proj.iam.gserviceaccount.com" },
      "serviceAccount:sa[@]proj.iam.gserviceaccount[.]com",
    ],
    [{ type: "principal", value: "principal://iam.googleapis.com/x" }, "principal://iam.googleapis[.]com/x"],
  ];
  for (const [ioc, expected] of table) {
    it(`${ioc.type} ${ioc.value} → ${expected}`, () => {
      assert.equal(defangIoc(ioc), expected);
    });
  }

  it("is idempotent: defanging a defanged value changes nothing", () => {
    for (const [ioc, expected] of table)
      assert.equal(defangIoc({ type: ioc.type, value: expected }), expected);
  });
});

describe("defangText", () => {
  it("defangs URLs, emails, IPv4 and domains in prose and leaves method and file names alone", () => {
    const input =
      "beacon to evil.com from 10.0.0.5 via https://evil.com/a.php and mail bob@evil.com; " +
      "file config.json; method compute.instances.insert; version 1.2.3";
    assert.equal(
      defangText(input),
      "beacon to evil[.]com from 10.0.0[.]5 via hxxps://evil[.]com/a.php and mail bob[@]evil[.]com; " +
        "file config.json; method compute.instances.insert; version 1.2.3",
    );
  });

  it("does not take a longer dotted number for an IP", () => {
    assert.equal(defangText("build 1.2.3.4.5 and 1.2.3.456"), "build 1.2.3.4.5 and 1.2.3.456");
  });

  it("breaks Slack-style link syntax targets too", () => {
    assert.equal(defangText("<https://evil.example.com|docs>"), "<hxxps://evil.example[.]com|docs>");
  });
});
