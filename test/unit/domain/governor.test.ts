import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import {
  normalizeNotification,
  parseNotification,
  receivedPayload,
} from "../../../functions/src/domain/finding/finding.js";
import { findingPrint } from "../../../functions/src/domain/finding/finding-print.js";
import {
  addToBucket,
  admissionDecision,
  BUCKET_MS,
  compareQueued,
  coveredBecause,
  differencesFromLead,
  EMPTY_GOVERNOR_STATE,
  freeSlots,
  type GovernorLimits,
  GovernorLimitsSchema,
  type GovernorUsage,
  groupKeys,
  groupSubject,
  joinsLead,
  queueSortKey,
  usageOf,
  withAdmitted,
  withReleased,
} from "../../../functions/src/domain/governor.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";

const limits: GovernorLimits = GovernorLimitsSchema.parse({
  maxConcurrent: 3,
  perHour: 10,
  tokensPerHour: 1_000,
  tokensPerDay: 5_000,
  groupWindowMinutes: 30,
});
const idle: GovernorUsage = {
  running: 0,
  startedLastHour: 0,
  tokensLastHour: 0,
  tokensLastDay: 0,
  waiting: 0,
};

describe("admission decision", () => {
  test("admits when every limit has room and nothing waits", () => {
    assert.deepEqual(
      admissionDecision({ ...idle, running: 2, startedLastHour: 9, tokensLastHour: 999 }, limits),
      {
        admit: true,
      },
    );
  });

  test("queues at the concurrency limit, naming it", () => {
    const d = admissionDecision({ ...idle, running: 3 }, limits);
    assert.equal(d.admit, false);
    assert.match(d.admit ? "" : d.reason, /3 investigations running \(limit 3\)/);
  });

  test("queues at the hourly start limit", () => {
    const d = admissionDecision({ ...idle, startedLastHour: 10 }, limits);
    assert.match(d.admit ? "" : d.reason, /started in the last hour \(limit 10\)/);
  });

  test("queues at the hourly and the daily token limits", () => {
    const hour = admissionDecision({ ...idle, tokensLastHour: 1_000, tokensLastDay: 1_000 }, limits);
    assert.match(hour.admit ? "" : hour.reason, /tokens in the last hour \(limit 1000\)/);
    const day = admissionDecision({ ...idle, tokensLastDay: 5_000 }, limits);
    assert.match(day.admit ? "" : day.reason, /tokens in the last day \(limit 5000\)/);
  });

  test("a token limit of 0 means no limit", () => {
    const open = { ...limits, tokensPerHour: 0, tokensPerDay: 0 };
    assert.deepEqual(admissionDecision({ ...idle, tokensLastHour: 10 ** 9, tokensLastDay: 10 ** 10 }, open), {
      admit: true,
    });
  });

  test("a newcomer never overtakes findings already waiting, even with room", () => {
    const d = admissionDecision({ ...idle, waiting: 4 }, limits);
    assert.equal(d.admit, false);
    assert.match(d.admit ? "" : d.reason, /4 finding\(s\) already waiting/);
  });

  test("free slots are bounded by both concurrency and the hourly starts", () => {
    assert.equal(freeSlots({ ...idle, running: 1 }, limits), 2);
    assert.equal(freeSlots({ ...idle, running: 0, startedLastHour: 9 }, limits), 1);
    assert.equal(freeSlots({ ...idle, tokensLastDay: 5_000 }, limits), 0);
  });
});

describe("queue order", () => {
  test("severity first (CRITICAL > HIGH > MEDIUM > LOW > unspecified), then the oldest event", () => {
    const entries = [
      { id: "low-old", sortKey: queueSortKey("LOW", "2026-01-01T00:00:00Z", "a") },
      { id: "none", sortKey: queueSortKey("SEVERITY_UNSPECIFIED", "2020-01-01T00:00:00Z", "b") },
      { id: "high-new", sortKey: queueSortKey("HIGH", "2026-03-01T00:00:00Z", "c") },
      { id: "critical", sortKey: queueSortKey("CRITICAL", "2026-06-01T00:00:00Z", "d") },
      { id: "high-old", sortKey: queueSortKey("HIGH", "2026-02-01T00:00:00.5+01:00", "e") },
      { id: "medium", sortKey: queueSortKey("MEDIUM", "2026-01-01T00:00:00Z", "f") },
    ];
    assert.deepEqual(
      [...entries].sort(compareQueued).map((e) => e.id),
      ["critical", "high-old", "high-new", "medium", "low-old", "none"],
    );
  });

  test("event times in other offsets are compared as instants", () => {
    const utc = queueSortKey("HIGH", "2026-02-01T00:30:00Z", "x");
    const earlier = queueSortKey("HIGH", "2026-02-01T01:00:00+01:00", "y"); // 00:00Z
    assert.ok(earlier < utc);
  });
});

describe("grouping", () => {
  const finding = {
    category: "Persistence: IAM Anomalous Grant",
    resource: { name: "//compute.googleapis.com/projects/p/zones/z/instances/vm-1" },
    access: { principalEmail: "alice@example.com" },
  };

  test("keys are category+principal and category+resource, principal first", () => {
    assert.deepEqual(groupKeys(finding), [
      { kind: "principal", category: finding.category, value: "alice@example.com" },
      { kind: "resource", category: finding.category, value: finding.resource.name },
    ]);
    assert.deepEqual(
      groupKeys({ ...finding, access: undefined }).map((k) => k.kind),
      ["resource"],
    );
  });

  test("a whole project, folder or organization is not a grouping key (issue 27)", () => {
    for (const name of [
      "//cloudresourcemanager.googleapis.com/projects/745499495002",
      "//cloudresourcemanager.googleapis.com/folders/123",
      "//cloudresourcemanager.googleapis.com/organizations/348460459432",
    ])
      assert.deepEqual(
        groupKeys({ ...finding, resource: { name } }).map((k) => k.kind),
        ["principal"],
        name,
      );
    assert.deepEqual(
      groupKeys({
        ...finding,
        resource: { name: "//x/acme", type: "google.cloud.resourcemanager.Project" },
      }).map((k) => k.kind),
      ["principal"],
    );
    assert.deepEqual(
      groupKeys({
        ...finding,
        access: undefined,
        resource: { name: "//cloudresourcemanager.googleapis.com/projects/1" },
      }),
      [],
    );
  });

  // Issue 27's decoy and real grant: the scenario's notification, and a copy with another grant.
  const received = (payload: unknown) => {
    const n = parseNotification(payload);
    return { finding: normalizeNotification(n), print: findingPrint(receivedPayload(n)) };
  };
  const REAL = JSON.parse(
    readFileSync(fromRoot("examples/scenarios/iam-anomalous-grant/notification.json"), "utf8"),
  ) as { finding: Record<string, unknown> & { access: Record<string, unknown> } };
  const decoyOf = () => {
    const copy = structuredClone(REAL);
    copy.finding.name = `${String(copy.finding.name)}-decoy`;
    copy.finding.iamBindings = [
      { action: "ADD", role: "roles/viewer", member: "user:auditor@partner.example" },
    ];
    copy.finding.access.callerIp = "35.192.77.14";
    return copy;
  };
  test("a finding differing from the lead by grantee and address is not covered, and the reason names both", () => {
    const decoy = received(decoyOf());
    const real = received(REAL);
    const differences = differencesFromLead(groupSubject(decoy.finding, decoy.print), real.print);
    const words = differences.join(" | ");
    assert.match(words, /finding\.iamBindings\[0\]\.role is "roles\/owner", not the lead's/);
    assert.match(words, /finding\.iamBindings\[0\]\.member is "user:dev\.contractor\.ops@gmail\.com"/);
    assert.match(words, /finding\.access\.callerIp is "203\.0\.113\.201"/);
  });
  test("the same activity again is covered, and the reason says so", () => {
    const again = structuredClone(REAL);
    again.finding.name = `${String(again.finding.name)}-again`;
    again.finding.eventTime = "2025-07-22T14:09:51.207Z";
    const lead = received(REAL);
    const subject = groupSubject(lead.finding, lead.print);
    assert.deepEqual(differencesFromLead(subject, received(again).print), []);
    assert.match(
      coveredBecause(subject),
      /same principal ci-deployer@acme-web-prod\.iam\.gserviceaccount\.com on the same resource/,
    );
  });

  const now = new Date("2026-11-25T12:00:00Z");
  const lead = { leadId: "inv-a", openedAt: "2026-11-25T11:40:00Z" };
  test("joins an unfinished lead opened inside the window", () => {
    assert.equal(joinsLead(lead, "inv-b", now, 30), true);
  });
  test("does not join a finished lead, one outside the window, itself, or with grouping off", () => {
    assert.equal(joinsLead({ ...lead, finishedAt: "2026-11-25T11:50:00Z" }, "inv-b", now, 30), false);
    assert.equal(joinsLead(lead, "inv-b", now, 20), false);
    assert.equal(joinsLead(lead, "inv-a", now, 30), false);
    assert.equal(joinsLead(lead, "inv-b", now, 0), false);
  });
});

describe("bookkeeping", () => {
  const t0 = new Date("2026-11-25T12:00:00Z");
  test("admission counts a start and a running slot; release frees it once and books tokens", () => {
    const a = withAdmitted(EMPTY_GOVERNOR_STATE, "inv-1", t0);
    assert.equal(a.seq, 1);
    const b = withAdmitted(a.state, "inv-2", t0);
    assert.equal(b.seq, 2);
    assert.deepEqual(usageOf(b.state, 0, t0), {
      running: 2,
      startedLastHour: 2,
      tokensLastHour: 0,
      tokensLastDay: 0,
      waiting: 0,
    });
    const released = withReleased(b.state, "inv-1", 700, t0);
    assert.ok(released);
    assert.equal(withReleased(released, "inv-1", 700, t0), undefined, "a repeat books nothing");
    assert.equal(usageOf(released, 0, t0).running, 1);
    assert.equal(usageOf(released, 0, t0).tokensLastHour, 700);
  });

  test("hourly counts fall out after an hour, daily after a day, and old buckets are dropped", () => {
    const start = withAdmitted(EMPTY_GOVERNOR_STATE, "inv-1", t0).state;
    const booked = withReleased(start, "inv-1", 500, t0) ?? start;
    const later = new Date(t0.getTime() + 3_600_000 + BUCKET_MS);
    assert.equal(usageOf(booked, 0, later).startedLastHour, 0);
    assert.equal(usageOf(booked, 0, later).tokensLastHour, 0);
    assert.equal(usageOf(booked, 0, later).tokensLastDay, 500);
    const nextDay = new Date(t0.getTime() + 25 * 3_600_000);
    assert.equal(usageOf(booked, 0, nextDay).tokensLastDay, 0);
    assert.deepEqual(Object.keys(addToBucket(booked.tokenBuckets, nextDay, 1)), [
      new Date(Math.floor(nextDay.getTime() / BUCKET_MS) * BUCKET_MS).toISOString(),
    ]);
  });
});

describe("limits schema", () => {
  test("rejects a zero concurrency with a clear path", () => {
    const r = GovernorLimitsSchema.safeParse({ maxConcurrent: 0 });
    assert.equal(r.success, false);
    assert.deepEqual(r.error?.issues[0]?.path, ["maxConcurrent"]);
  });
});
