import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openDuckDbWarehouse } from "../../../functions/src/adapters/duckdb/warehouse.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import type { Intent, IntentParam } from "../../../functions/src/offline-model/intents.js";
import { sqlFor } from "../../../functions/src/offline-model/sql.js";
import { assertTwinsIgnored, twinnedLogs } from "./support/twins.js";

/**
 * The offline model's own SQL (used when no runbook fits) attributes evidence by exact identity
 * too (decision 0046): over logs where every row naming an asked value has twins naming a longer
 * name that contains it, each query's answer is unchanged.
 */

/** The identity parameters; times and ports are not names. */
const IDENTITY: readonly IntentParam[] = [
  "ips",
  "domains",
  "instance",
  "principal",
  "member",
  "bucket",
  "resource",
  "terms",
  "hashes",
];

const CASES: { scenario: string; intent: Intent }[] = [
  { scenario: "cryptomining", intent: { kind: "resource_activity", params: { instance: ["etl-worker-1"] } } },
  {
    scenario: "cryptomining",
    // One term: the terms are alternatives, so a twin of one may rightly match by another.
    intent: { kind: "host_logs", params: { instance: ["etl-worker-1"], terms: ["deploy"] } },
  },
  {
    scenario: "ssh-brute-force",
    intent: { kind: "host_logs", params: { instance: ["gitlab-runner-1"], ips: ["198.51.100.34"] } },
  },
  { scenario: "cryptomining", intent: { kind: "dns", params: { domains: ["xmr.pool-relay.top"] } } },
  { scenario: "cryptomining", intent: { kind: "dns", params: { instance: ["etl-worker-1"] } } },
  {
    scenario: "iam-anomalous-grant",
    intent: { kind: "iam_changes", params: { member: ["dev.contractor.ops@gmail.com"] } },
  },
  {
    scenario: "leaked-sa-key",
    intent: {
      kind: "iam_changes",
      params: { principal: ["backup-exporter@acme-data-prod.iam.gserviceaccount.com"] },
    },
  },
  {
    scenario: "public-bucket",
    intent: { kind: "bucket_policy", params: { bucket: ["acme-brand-site-assets"] } },
  },
  {
    scenario: "leaked-sa-key",
    intent: { kind: "bucket_access", params: { bucket: ["acme-customer-exports"] } },
  },
];

describe("the offline model's SQL attributes evidence by exact identity (decision 0046)", () => {
  const temps: string[] = [];
  after(() => {
    for (const t of temps) rmSync(t, { recursive: true, force: true });
  });

  for (const { scenario, intent } of CASES)
    it(`${intent.kind}(${JSON.stringify(intent.params)}) on ${scenario}: a longer name containing an asked value never changes the answer`, async () => {
      const dir = join("examples/scenarios", scenario);
      const finding = normalizeNotification(
        parseNotification(JSON.parse(readFileSync(join(dir, "notification.json"), "utf8"))),
      );
      const anchor = Date.parse(finding.eventTime);
      const window = {
        start: [new Date(anchor - 7 * 24 * 3_600_000).toISOString()],
        end: [new Date(anchor + 24 * 3_600_000).toISOString()],
      };
      const asked: Intent = { ...intent, params: { ...intent.params, ...window } };
      const values = IDENTITY.flatMap((k) => intent.params[k] ?? []);
      const logs = twinnedLogs(dir, values);
      temps.push(logs.dir);
      assert.ok(logs.twins > 0, "the logs hold rows to twin");
      const original = await openDuckDbWarehouse({ dir: join(dir, "logs"), maxRows: 5_000 });
      const twinned = await openDuckDbWarehouse({ dir: logs.dir, maxRows: 5_000 });
      try {
        let answered = 0;
        for (const q of sqlFor(asked)) {
          const request = { sql: q.sql, pageSize: 500 };
          answered += (await assertTwinsIgnored(original, twinned, request, values, q.label)).length;
        }
        assert.ok(answered > 0, "the queries have rows to begin with");
      } finally {
        await original.close();
        await twinned.close();
      }
    });
});
