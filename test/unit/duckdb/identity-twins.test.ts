import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openDuckDbWarehouse } from "../../../functions/src/adapters/duckdb/warehouse.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import { loadRunbooks, renderRunbook } from "../../../functions/src/sql/runbooks.js";
import { ExpectedSchema } from "../../../scripts/scenarios/expected.js";
import { SCENARIOS } from "../../../scripts/scenarios/index.js";
import { assertTwinActorsIgnored, assertTwinsIgnored, twinnedLogs } from "./support/twins.js";

/**
 * Exact identity in evidence (decision 0046), as a property over every runbook: for each value a
 * runbook is asked about, every log row that names it is copied with the value made into a
 * longer name that contains it (a character before it, a character after it), and the runbook's
 * answer must not change. `deploy@…` never returns `backdoor-deploy@…`'s rows, `…/web-1` never
 * `…/web-10`'s. The cases are the scenarios' own probes, plus one for each runbook no probe asks.
 */

const runbooks = loadRunbooks();

interface Case {
  runbook: string;
  params: Record<string, string>;
  window?: { hoursBefore: number; hoursAfter: number };
}

/** Runbooks no scenario probe asks, with a value that has rows in that scenario's logs. */
const EXTRA: Record<string, Case[]> = {
  cryptomining: [
    { runbook: "resource_activity", params: { resource: "etl-worker-1" } },
    { runbook: "resource_activity", params: { resource: "zones/us-central1-a/instances/etl-worker-1" } },
    { runbook: "host_syslog_near_dns", params: { domain: "xmr.pool-relay.top" } },
    { runbook: "vpc_flows_to_dns_answers", params: { domain: "xmr.pool-relay.top" } },
  ],
  "log4j-blocked-probe": [
    { runbook: "lb_requests_to_backend", params: { backend_service: "shop-web-backend" } },
  ],
  "ssh-brute-force": [
    // An IP and a user name as search terms: the names a twin could shadow.
    { runbook: "host_syslog_search", params: { instance: "gitlab-runner-1", term: "198.51.100.34" } },
  ],
};

function requestFor(c: Case, anchor: number) {
  const hours = c.window ?? { hoursBefore: 24, hoursAfter: 24 };
  const window = {
    start: new Date(anchor - hours.hoursBefore * 3_600_000).toISOString(),
    end: new Date(anchor + hours.hoursAfter * 3_600_000).toISOString(),
  };
  return renderRunbook(runbooks.get(c.runbook), { ...c.params, ...window }, { pageSize: 500 });
}

const stringParams = (name: string) =>
  runbooks
    .get(name)
    .params.filter((p) => p.type === "STRING")
    .map((p) => p.name);

const scenarioCases = SCENARIOS.map((s) => {
  const dir = join("examples/scenarios", s.name);
  const expected = ExpectedSchema.parse(JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")));
  const cases: Case[] = [
    ...expected.probes
      .filter((p) => p.rows === "some" && stringParams(p.runbook).length > 0)
      .map((p) => ({ runbook: p.runbook, params: p.params, window: p.window })),
    ...(EXTRA[s.name] ?? []),
  ];
  return { name: s.name, dir, cases };
});

describe("runbooks attribute evidence by exact identity (decision 0046)", () => {
  const temps: string[] = [];
  after(() => {
    for (const t of temps) rmSync(t, { recursive: true, force: true });
  });

  it("every runbook with a STRING parameter is asked about a value with rows", () => {
    const asked = new Set(scenarioCases.flatMap((s) => s.cases.map((c) => c.runbook)));
    const missing = runbooks
      .list()
      .filter((r) => stringParams(r.name).length > 0 && !asked.has(r.name))
      .map((r) => r.name);
    assert.deepEqual(missing, []);
  });

  for (const { name, dir, cases } of scenarioCases.filter((s) => s.cases.length > 0))
    it(`${name}: a longer name containing an asked value never changes a runbook's answer`, async () => {
      const finding = normalizeNotification(
        parseNotification(JSON.parse(readFileSync(join(dir, "notification.json"), "utf8"))),
      );
      const anchor = Date.parse(finding.eventTime);
      const original = await openDuckDbWarehouse({ dir: join(dir, "logs"), maxRows: 5_000 });
      try {
        for (const c of cases) {
          const label = `${c.runbook}(${JSON.stringify(c.params)})`;
          const values = stringParams(c.runbook).map((k) => c.params[k] ?? "");
          const logs = twinnedLogs(dir, values);
          temps.push(logs.dir);
          assert.ok(logs.twins > 0, `${label}: the logs hold rows to twin`);
          const twinned = await openDuckDbWarehouse({ dir: logs.dir, maxRows: 5_000 });
          try {
            const check =
              runbooks.get(c.runbook).subject === "actors" ? assertTwinActorsIgnored : assertTwinsIgnored;
            const before = await check(original, twinned, requestFor(c, anchor), values, label);
            assert.ok(before.length > 0, `${label} has rows to begin with`);
          } finally {
            await twinned.close();
          }
        }
      } finally {
        await original.close();
      }
    });

  it("resource_activity reads a full resource name (//service/…) as the logged relative name it ends with", async () => {
    const dir = "examples/scenarios/cryptomining";
    const finding = normalizeNotification(
      parseNotification(JSON.parse(readFileSync(join(dir, "notification.json"), "utf8"))),
    );
    const anchor = Date.parse(finding.eventTime);
    const warehouse = await openDuckDbWarehouse({ dir: join(dir, "logs"), maxRows: 5_000 });
    try {
      const relative = "projects/acme-analytics-prod/zones/us-central1-a/instances/etl-worker-1";
      const ask = async (resource: string) =>
        (await warehouse.query(requestFor({ runbook: "resource_activity", params: { resource } }, anchor)))
          .rows;
      const byTail = await ask(relative);
      assert.ok(byTail.length > 0);
      assert.deepEqual(await ask(`//compute.googleapis.com/${relative}`), byTail);
    } finally {
      await warehouse.close();
    }
  });
});
