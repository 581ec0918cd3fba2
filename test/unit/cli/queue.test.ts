import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { queueCommand } from "../../../functions/src/cli/queue.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import {
  EMPTY_GOVERNOR_STATE,
  type GovernorState,
  type QueueEntry,
  queueEntryFor,
  withAdmitted,
} from "../../../functions/src/domain/governor.js";
import type { GovernorStore } from "../../../functions/src/ports/governor-store.js";

const NOW = new Date("2026-11-25T12:00:00Z");

/** A governor store holding a fixed state, for the command's output; writes are not expected. */
function fixedStore(
  state: GovernorState,
  queue: QueueEntry[],
  groups: { leadId: string; relatedCount: number }[],
) {
  const refuse = () => Promise.reject(new Error("ferret queue must not change the governor"));
  const store: GovernorStore = {
    group: refuse,
    enqueue: refuse,
    drain: refuse,
    unannounced: refuse,
    markAnnounced: refuse,
    state: async () => state,
    queue: async (limit) => queue.slice(0, limit),
    queueDepth: async () => queue.length,
    aheadOf: async (key) => queue.filter((e) => e.sortKey < key).length,
    relatedCount: async (id) => groups.find((g) => g.leadId === id)?.relatedCount ?? 0,
    listRelated: async () => [],
    topGroups: async (limit) => groups.slice(0, limit),
  };
  return store;
}

async function run(args: string[], store: GovernorStore, env: Record<string, string> = {}) {
  const lines: string[] = [];
  let closed = false;
  const config = loadConfig({ env });
  const command = queueCommand(
    () => ({
      governor: store,
      config,
      close: async () => {
        closed = true;
      },
    }),
    { line: (text) => lines.push(text) },
    () => NOW,
  ).exitOverride();
  await command.parseAsync(args, { from: "user" });
  return { out: lines.join("\n"), closed };
}

describe("ferret queue", () => {
  let state = EMPTY_GOVERNOR_STATE;
  for (const id of ["inv-a", "inv-b"]) state = withAdmitted(state, id, NOW).state;
  const queue = [
    queueEntryFor(
      { severity: "CRITICAL", category: "C2: Bad IP", eventTime: "2026-11-25T11:00:00Z" },
      "inv-c",
      NOW,
      "2 running (limit 2)",
    ),
    queueEntryFor(
      { severity: "LOW", category: "OPEN_FIREWALL", eventTime: "2026-11-25T10:00:00Z" },
      "inv-d",
      NOW,
      "2 running (limit 2)",
    ),
  ];
  const store = fixedStore(state, queue, [{ leadId: "inv-a", relatedCount: 37 }]);

  test("prints depth, the limit holding it back, usage against limits, next up, running and groups", async () => {
    const { out, closed } = await run([], store, { FERRET_GOVERNOR_MAX_CONCURRENT: "2" });
    assert.match(out, /queue depth\s+2\s+\(held back: 2 investigations running \(limit 2\)\)/);
    assert.match(out, /running\s+2 of 2/);
    assert.match(out, /started, last hour 2 of 30/);
    assert.match(out, /tokens, last day\s+0 of 40000000/);
    assert.match(out, /grouping window\s+off/);
    assert.ok(out.indexOf("inv-c") < out.indexOf("inv-d"), "next up in drain order");
    assert.match(out, /inv-a\s+\+ 37 related/);
    assert.equal(closed, true);
  });

  test("--json gives the same report for machines", async () => {
    const { out } = await run(["--json", "--next", "1"], store, {
      FERRET_GOVERNOR_GROUP_WINDOW_MINUTES: "30",
    });
    const report = JSON.parse(out);
    assert.equal(report.depth, 2);
    assert.deepEqual(
      report.next.map((e: QueueEntry) => e.investigationId),
      ["inv-c"],
    );
    assert.equal(report.usage.running, 2);
    assert.equal(report.limits.groupWindowMinutes, 30);
    assert.equal(report.blockedBy, undefined, "room under the default limit of 10");
    assert.deepEqual(report.groups, [{ leadId: "inv-a", relatedCount: 37 }]);
  });

  test("--help names the options and where the limits come from", () => {
    const help = queueCommand().helpInformation();
    for (const option of ["--next", "--groups", "--json"]) assert.ok(help.includes(option), option);
    assert.match(queueCommand().description(), /severity, then age/);
  });

  test("a negative count is refused", async () => {
    await assert.rejects(run(["--next", "-1"], store));
  });
});
