import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, it, mock } from "node:test";
import fc from "fast-check";
import { startGateProxy } from "../../../functions/src/local/gate-proxy.js";
import { CLOUD_RUN_QUEUE_MS, InstanceGate } from "../../../functions/src/local/instance-gate.js";

/**
 * The local stand-in for Cloud Run at its instance cap: "incoming requests can be queued for up
 * to 10 seconds. During this time window, if an instance finishes processing requests, it
 * becomes available to process queued requests. If no instances become available during the
 * window, the request fails with a 429 error code"
 * (https://cloud.google.com/run/docs/about-instance-autoscaling#exceeding-max-instances).
 */

interface Arrival {
  at: number;
  duration: number;
}

interface Outcome {
  i: number;
  at: number;
  waited: number;
  refused: boolean;
  /** When the slot was given or the refusal made. */
  decidedAt: number;
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs arrivals through a gate on mocked time, checking at every millisecond that no slot idles while a request waits. */
async function simulate(slots: number, queueMs: number, arrivals: readonly Arrival[]) {
  mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
  try {
    const gate = new InstanceGate(slots, queueMs);
    let inFlight = 0;
    let peak = 0;
    let waiting = 0;
    let idledWhileWaiting = 0;
    let refusedWithFreeSlot = 0;
    let lastReleaseAt = -1;
    const outcomes: Outcome[] = [];
    arrivals.forEach((a, i) => {
      setTimeout(() => {
        waiting += 1;
        void gate.acquire().then((release) => {
          waiting -= 1;
          const now = Date.now();
          if (!release) {
            // Seen a microtask late: a slot freed in this same millisecond was still held when the
            // window closed (timers due at one instant run in the order they were set).
            if (inFlight < slots && lastReleaseAt < now) refusedWithFreeSlot += 1;
            outcomes.push({ i, at: a.at, waited: now - a.at, refused: true, decidedAt: now });
            return;
          }
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          outcomes.push({ i, at: a.at, waited: now - a.at, refused: false, decidedAt: now });
          setTimeout(() => {
            inFlight -= 1;
            lastReleaseAt = Date.now();
            release();
          }, a.duration);
        });
      }, a.at);
    });
    const horizon = Math.max(0, ...arrivals.map((a) => a.at)) + queueMs + arrivals.length * 60 + 10;
    for (let t = 0; t <= horizon; t++) {
      // The first turn runs what is due at 0 ms, each later one advances a millisecond.
      mock.timers.tick(t === 0 ? 0 : 1);
      await flush();
      if (waiting > 0 && inFlight < slots) idledWhileWaiting += 1;
    }
    return { outcomes, peak, idledWhileWaiting, refusedWithFreeSlot, stats: gate.stats() };
  } finally {
    mock.timers.reset();
  }
}

const arrival = fc.record({
  at: fc.integer({ min: 0, max: 200 }),
  duration: fc.integer({ min: 1, max: 60 }),
});

describe("the instance gate (Cloud Run at max instances)", () => {
  it("waits Cloud Run's 10 s by default", () => {
    assert.equal(CLOUD_RUN_QUEUE_MS, 10_000);
    assert.equal(new InstanceGate(3).queueMs, 10_000);
    assert.throws(() => new InstanceGate(0), RangeError);
  });

  it("never serves more than its slots, queues only when full, refuses only after the whole window, first come first served", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 5, max: 50 }),
        fc.array(arrival, { minLength: 1, maxLength: 25 }),
        async (slots, queueMs, arrivals) => {
          const run = await simulate(slots, queueMs, arrivals);
          assert.equal(run.outcomes.length, arrivals.length, "every request was answered");
          assert.ok(run.peak <= slots, `peak ${run.peak} > ${slots} slots`);
          assert.equal(run.idledWhileWaiting, 0, "a slot stood free while a request waited");
          for (const o of run.outcomes) {
            if (o.refused) assert.equal(o.waited, queueMs, `request ${o.i} refused after ${o.waited} ms`);
            else assert.ok(o.waited <= queueMs, `request ${o.i} admitted after ${o.waited} ms`);
          }
          assert.equal(run.refusedWithFreeSlot, 0);
          // First come, first served: a later request never got a slot while an earlier one still waited.
          const admitted = run.outcomes.filter((o) => !o.refused);
          for (const later of admitted)
            for (const earlier of run.outcomes)
              if (earlier.at < later.at && later.decidedAt < earlier.decidedAt)
                assert.fail(`request ${later.i} jumped request ${earlier.i}`);
          assert.equal(run.stats.refused, run.outcomes.filter((o) => o.refused).length);
          assert.equal(run.stats.admitted, admitted.length);
        },
      ),
      {
        numRuns: 60,
        examples: [
          [
            1,
            30,
            [
              { at: 46, duration: 28 },
              { at: 57, duration: 1 },
              { at: 46, duration: 13 },
              { at: 0, duration: 1 },
            ],
          ],
        ],
      },
    );
  });

  it("a burst over the cap: what fits is served, what waits for a slot that frees in time is served late, the rest get 429", async () => {
    // 2 slots, 50 ms window; 5 requests at once, each holding its slot 40 ms.
    const run = await simulate(
      2,
      50,
      Array.from({ length: 5 }, () => ({ at: 0, duration: 40 })),
    );
    const byIndex = [...run.outcomes].sort((a, b) => a.i - b.i).map((o) => (o.refused ? 429 : o.waited));
    assert.deepEqual(byIndex, [0, 0, 40, 40, 429]);
  });
});

describe("the gate in front of a function server", () => {
  let backend: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (backend ? backend.close(() => resolve()) : resolve()));
    backend = undefined;
  });

  async function slowBackend(ms: number): Promise<string> {
    backend = createServer((req, res) => {
      req.resume();
      req.on("end", () => setTimeout(() => res.end(JSON.stringify({ path: req.url })), ms));
    });
    await new Promise<void>((resolve) => backend?.listen(0, "127.0.0.1", () => resolve()));
    return `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
  }

  it("forwards what fits and answers 429 to what waited the window out", async () => {
    const target = await slowBackend(400);
    const gate = new InstanceGate(2, 100);
    const proxy = await startGateProxy({ name: "planner", target, gate, port: 0 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) => fetch(`${proxy.url}/r${i}`, { method: "POST", body: "{}" })),
      );
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, 200, 429, 429, 429]);
      const served = await Promise.all(answers.filter((a) => a.status === 200).map((a) => a.json()));
      assert.equal(served.length, 2);
      assert.match(await (answers.find((a) => a.status === 429) as Response).text(), /instance cap/);
      assert.deepEqual(
        { ...gate.stats(), longestWaitMs: 0 },
        { admitted: 2, queued: 3, refused: 3, peakInFlight: 2, longestWaitMs: 0 },
      );
    } finally {
      await proxy.close();
    }
  });

  it("queues a request until a slot frees within the window", async () => {
    const target = await slowBackend(50);
    const gate = new InstanceGate(1, 2_000);
    const proxy = await startGateProxy({ name: "stepExecutor", target, gate, port: 0 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => fetch(proxy.url, { method: "POST" })),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 200],
      );
      assert.equal(gate.stats().peakInFlight, 1);
      assert.equal(gate.stats().queued, 3);
    } finally {
      await proxy.close();
    }
  });

  it("refuses a caller its check turns away before it takes a slot", async () => {
    const target = await slowBackend(1);
    const gate = new InstanceGate(1, 100);
    const proxy = await startGateProxy({
      name: "planner",
      target,
      gate,
      port: 0,
      authorize: (req) => (req.headers.authorization ? undefined : { status: 401, reason: "no token" }),
    });
    try {
      assert.equal((await fetch(proxy.url, { method: "POST" })).status, 401);
      assert.equal(
        (await fetch(proxy.url, { method: "POST", headers: { authorization: "Bearer x" } })).status,
        200,
      );
      assert.equal(gate.stats().admitted, 1);
    } finally {
      await proxy.close();
    }
  });
});
