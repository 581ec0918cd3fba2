import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResultSummary } from "../../../functions/src/agent/result-summary.js";
import type { Intent } from "../../../functions/src/offline-model/intents.js";
import {
  enrichIntent,
  readsPriorResults,
} from "../../../functions/src/offline-model/step-executor/step-intent.js";
import { subjectOf } from "../../../functions/src/offline-model/subject.js";
import { badDomainFinding } from "./support/findings.js";

// What an earlier step could hand over: a public IP, a domain, a hash and a timestamp in a fact.
const prior: ResultSummary[] = [
  {
    stepId: "dns-lookups",
    description: "",
    status: "done",
    outcome: "answered",
    summary: "resolved",
    facts: ["first query at 2025-01-02T03:04:05Z"],
    iocs: [
      { type: "ip", value: "203.0.113.9", context: "answer" },
      { type: "domain", value: "other.example.net", context: "answer" },
      { type: "hash", value: "a".repeat(64), context: "file" },
    ],
  },
];

const window = { start: ["2025-01-02T00:00:00Z"], end: ["2025-01-02T06:00:00Z"] };
const cases: { intent: Intent; reads: boolean }[] = [
  { intent: { kind: "intel", params: {} }, reads: true },
  { intent: { kind: "intel", params: { ips: ["198.51.100.7"] } }, reads: false },
  { intent: { kind: "flows", params: { ...window } }, reads: true },
  { intent: { kind: "flows", params: { ips: ["198.51.100.7"], ...window } }, reads: false },
  { intent: { kind: "dns", params: { ...window } }, reads: true },
  { intent: { kind: "dns", params: { domains: ["x.example.org"], ...window } }, reads: false },
  {
    intent: { kind: "host_logs", params: { instance: ["web-3"], terms: ["sudo"], ...window } },
    reads: false,
  },
  { intent: { kind: "ssh_auth", params: { instance: ["web-3"], ...window } }, reads: false },
];

describe("readsPriorResults agrees with enrichIntent", () => {
  // A finding with no IPs, no hashes and no instance-free fallbacks, so values can only come from prior results.
  const subject = { ...subjectOf(badDomainFinding()), domains: [], remoteIps: [], publicIps: [], hashes: [] };
  for (const { intent, reads } of cases) {
    it(`${intent.kind} ${JSON.stringify(intent.params)} → ${reads ? "reads" : "does not read"} earlier results`, () => {
      assert.equal(readsPriorResults(intent), reads);
      const without = enrichIntent(intent, subject, []);
      const withPrior = enrichIntent(intent, subject, prior);
      if (reads) assert.notDeepEqual(withPrior, without, "earlier results change the query");
      else assert.deepEqual(withPrior, without, "earlier results change nothing");
    });
  }

  it("a step anchored on its dependencies' first event reads them", () => {
    assert.equal(
      readsPriorResults({ kind: "host_logs", params: { instance: ["web-3"], near: ["prior"], ...window } }),
      true,
    );
  });
});
