import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { completeIocs } from "../../../functions/src/domain/conclusion-guards.js";
import { isDomainName } from "../../../functions/src/domain/domain-grammar.js";
import { isGoogleServiceAddress } from "../../../functions/src/domain/finding/google-ip-ranges.js";
import type { Ioc } from "../../../functions/src/domain/ioc.js";
import type { JsonValue } from "../../../functions/src/domain/json.js";
import { logRowIocs } from "../../../functions/src/domain/log-row-iocs.js";
import type { ToolCall } from "../../../functions/src/domain/results.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { cryptominingFinding } from "../offline/support/findings.js";
import { plan, result, rowsCall, step } from "../offline/support/results.js";

/**
 * Indicators from log rows (issue 38): a value is one when its column's meaning is an indicator
 * (the column's name or the log schema declares the kind) and it is written in that kind's
 * grammar; the conclusion lists a value the logs showed only when something ties it to the
 * finding (the finding names it, intel judged it, or it answers a query for the finding's own
 * indicator). The rows are shaped as the runbooks return them (functions/runbooks/*.sql).
 */
const keys = (iocs: readonly Ioc[]) => iocs.map((i) => `${i.type}:${i.value}`);

describe("log rows are read by what each column is", () => {
  it("a dotted account name in an sshd line is not a domain; the address in it still is one", () => {
    const iocs = logRowIocs([
      {
        source_ip: "198.51.100.34",
        outcome: "accepted",
        sample_line: "sshd[811]: Accepted publickey for bob.schmidt from 198.51.100.34 port 50022 ssh2",
      },
    ]);
    assert.deepEqual(keys(iocs), ["ip:198.51.100.34"]);
  });

  it("a DNS query name is a domain because the log schema says so, under its runbook alias too", () => {
    assert.deepEqual(keys(logRowIocs([{ query_name: "pool.minexmr-relay.top.", query_type: "A" }])), [
      "domain:pool.minexmr-relay.top",
    ]);
    assert.deepEqual(keys(logRowIocs([{ jsonPayload: { queryName: "pool.minexmr-relay.top." } }])), [
      "domain:pool.minexmr-relay.top",
    ]);
  });

  it("a declared column keeps only values in its kind's grammar", () => {
    const iocs = logRowIocs([
      {
        caller_ip: "gce-internal-ip",
        principal: "not-an-account",
        dest_ip: "142.251.32.10",
        sample_url: "https://evil.example-cdn.net/x",
      },
    ]);
    // 142.251.32.10 is a Google front end (goog.json minus cloud.json): context, not an indicator.
    assert.deepEqual(keys(iocs), ["url:https://evil.example-cdn.net/x"]);
  });

  it("property: in a column that declares nothing, a host name is never a domain; in a domain column, exactly when it has a public suffix", () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9]{1,10}$/);
    fc.assert(
      fc.property(
        label,
        label,
        fc.constantFrom("line", "sample_line", "textPayload", "user", "note"),
        (a, b, column) => {
          const name = `${a}.${b}`;
          const free = logRowIocs([{ [column]: `session opened for ${name} by (uid=0)` }]);
          assert.ok(!free.some((i) => i.type === "domain"), `${column}: ${name}`);
          const declared = logRowIocs([{ query_name: name }]);
          assert.equal(
            declared.some((i) => i.type === "domain"),
            isDomainName(name),
            name,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("the conclusion lists a value from the logs only when something ties it to the finding", () => {
  const finding = cryptominingFinding();
  const draft: Ioc[] = [{ type: "ip", value: "203.0.113.50", context: "mining pool" }];
  const flows = (rows: { dest_ip: string; dest_port: number }[]) =>
    rowsCall(
      "vpc_flows_from_instance",
      { instance: "batch-7" },
      rows.map((r) => ({ ...r, flows: 12, external: true })),
    );
  const withIocs = (calls: ToolCall[], iocs: Ioc[]) => [result("flows", "answered", calls, iocs)];
  const p = plan([step("flows", "Where batch-7 connected", ["log_query"], { status: "done" })]);

  it("leaves out the CDN and Google addresses a VM talked to, keeps the finding's pool", () => {
    const rows = [
      { dest_ip: "203.0.113.50", dest_port: 3333 },
      { dest_ip: "151.101.1.63", dest_port: 443 },
      { dest_ip: "140.82.112.3", dest_port: 443 },
      { dest_ip: "142.251.32.10", dest_port: 443 },
    ];
    const seen = logRowIocs(rows).map((i) => ({
      ...i,
      context: "seen in runbook vpc_flows_from_instance results",
    }));
    const iocs = completeIocs(draft, finding, p, withIocs([flows(rows)], seen));
    const ips = iocs.filter((i) => i.type === "ip").map((i) => i.value);
    assert.deepEqual(ips, ["203.0.113.50"]);
  });

  it("keeps a flow peer that threat intel judged malicious, and says why", () => {
    const rows = [{ dest_ip: "198.51.100.200", dest_port: 443 }];
    const intel: ToolCall = {
      ...rowsCall("unused", {}, []),
      name: "threat_intel_lookup",
      data: null,
      verdicts: [{ type: "ip", value: "198.51.100.200", verdict: "malicious", sources: ["feed"] }],
    };
    const iocs = completeIocs(draft, finding, p, withIocs([flows(rows), intel], logRowIocs(rows)));
    assert.match(
      iocs.find((i) => i.value === "198.51.100.200")?.context ?? "",
      /threat intel judged it malicious/,
    );
  });

  it("keeps what answers a query for the finding's own indicator (the DNS answer of its domain)", () => {
    const rows = [
      {
        query_name: "pool.minexmr-relay.top.",
        answer: "pool.minexmr-relay.top. 300 IN A 198.51.100.9",
        vm: "batch-7",
      },
    ];
    const dns = rowsCall("dns_queries_for_domain", { domain: "pool.minexmr-relay.top" }, rows);
    const iocs = completeIocs(draft, finding, p, withIocs([dns], logRowIocs(rows)));
    assert.match(
      iocs.find((i) => i.value === "198.51.100.9")?.context ?? "",
      /query for the finding's pool\.minexmr-relay\.top/,
    );
  });

  it("drops a domain the model listed that the logs show only as an account name", () => {
    const rows = [
      {
        source_ip: "198.51.100.34",
        sample_line: "Accepted password for bob.schmidt from 198.51.100.34 port 2 ssh2",
      },
    ];
    const ssh = rowsCall("ssh_logins_on_host", { instance: "batch-7" }, rows);
    const iocs = completeIocs(
      [...draft, { type: "domain", value: "bob.schmidt", context: "seen in sshd" }],
      finding,
      p,
      withIocs([ssh], logRowIocs(rows)),
    );
    assert.ok(!iocs.some((i) => i.value === "bob.schmidt"), keys(iocs).join(", "));
    assert.ok(iocs.some((i) => i.value === "203.0.113.50"));
  });

  it("property: with no intel and no query for the finding, no flow peer but the finding's own is listed", () => {
    const publicIp = fc
      .tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.integer({ min: 1, max: 254 }))
      .filter(([a]) => a !== 10 && a !== 127 && a !== 100 && a !== 172 && a !== 192 && a !== 169)
      .map((o) => o.join("."));
    fc.assert(
      fc.property(fc.uniqueArray(publicIp, { minLength: 1, maxLength: 8 }), (peers) => {
        const rows = [
          { dest_ip: "203.0.113.50", dest_port: 3333 },
          ...peers.map((ip) => ({ dest_ip: ip, dest_port: 443 })),
        ];
        const iocs = completeIocs([], finding, p, withIocs([flows(rows)], logRowIocs(rows)));
        const listed = iocs.filter((i) => i.type === "ip").map((i) => i.value);
        assert.deepEqual(
          listed.filter((ip) => ip !== "203.0.113.50"),
          [],
          `peers ${peers.join(", ")}`,
        );
        assert.ok(!listed.some((ip) => isGoogleServiceAddress(ip) && ip !== "203.0.113.50"));
      }),
      { numRuns: 100 },
    );
  });
});

describe("log rows read from real Cloud Logging entries (test/fixtures/real/logs, PROVENANCE.md)", () => {
  const entries = (file: string) =>
    readFileSync(fromRoot(`test/fixtures/real/logs/storage-sink/${file}`), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as JsonValue);

  it("Cloud DNS entries: the query name is a domain; the VM's name and its private source address are not indicators", () => {
    const found = keys(logRowIocs(entries("elastic-dns-queries.jsonl")));
    assert.deepEqual(found, ["domain:elastic.co"]);
  });

  it("an access-token grant: the caller's public address and the acting account; never the private or loopback ones", () => {
    const found = keys(logRowIocs(entries("elastic-iamcredentials-generateaccesstoken.jsonl")));
    assert.ok(found.includes("ip:175.16.199.45"), found.join(", "));
    assert.ok(
      found.includes("email:made-up-ci-account@project-id.iam.gserviceaccount.com"),
      found.join(", "),
    );
    for (const local of ["ip:192.168.1.1", "ip:127.0.0.1"]) assert.ok(!found.includes(local), local);
  });
});
