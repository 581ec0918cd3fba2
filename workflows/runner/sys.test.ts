import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type LogEntry, type StepEvent, WorkflowError } from "./index.js";
import { fakeClock, run, runError } from "./test-support.js";

describe("sys.log", () => {
  it("routes data/text/json payloads and severities to onLog", async () => {
    const logs: LogEntry[] = [];
    await run(
      `
- a:
    call: sys.log
    args:
      data: {event: start}
      severity: INFO
- b:
    call: sys.log
    args:
      data: plain words
- c:
    call: sys.log
    args:
      text: [1, "two"]
      severity: WARNING
- d:
    call: sys.log
    args:
      json: {k: v}
      severity: ERROR
`,
      undefined,
      { onLog: (e) => logs.push(e), now: () => 42 },
    );
    assert.deepEqual(logs, [
      { severity: "INFO", json: { event: "start" }, atMs: 42 },
      { severity: "DEFAULT", text: "plain words", atMs: 42 },
      { severity: "WARNING", text: '[1,"two"]', atMs: 42 },
      { severity: "ERROR", json: { k: "v" }, atMs: 42 },
    ]);
  });

  it("rejects an unknown severity with ValueError", async () => {
    const payload = await runError(
      "- a:\n    call: sys.log\n    args:\n      text: x\n      severity: LOUD\n",
    );
    assert.deepEqual((payload as { tags: unknown }).tags, ["ValueError"]);
  });
});

describe("sys.sleep, sys.now and sys.get_env as call steps", () => {
  it("sleeps through the injected sleep, in milliseconds", async () => {
    const clock = fakeClock(1_000_000);
    const result = await run(
      `
- before:
    call: sys.now
    result: t0
- nap:
    call: sys.sleep
    args:
      seconds: 1.5
- after:
    call: sys.now
    result: t1
- env:
    call: sys.get_env
    args:
      name: GOOGLE_CLOUD_PROJECT_ID
    result: project
- out:
    return: ['\${t1 - t0}', '\${project}']
`,
      undefined,
      { ...clock, env: { GOOGLE_CLOUD_PROJECT_ID: "ferret-dev" } },
    );
    assert.deepEqual(clock.sleeps, [1500]);
    assert.deepEqual(result, [1.5, "ferret-dev"]);
  });

  it("rejects a negative sleep with ValueError", async () => {
    const payload = await runError(
      "- a:\n    call: sys.sleep\n    args:\n      seconds: -1\n",
      undefined,
      fakeClock(),
    );
    assert.deepEqual((payload as { tags: unknown }).tags, ["ValueError"]);
  });
});

describe("execution deadline", () => {
  const sleepy = `
- guarded:
    try:
      steps:
        - loop:
            for:
              value: i
              range: [1, 100]
              steps:
                - nap:
                    call: sys.sleep
                    args:
                      seconds: 10
    except:
      steps:
        - caught:
            return: caught
- done:
    return: finished
`;

  it("fails the run once the deadline passes, and except cannot catch it", async () => {
    const clock = fakeClock();
    const err = await run(sleepy, undefined, { ...clock, deadlineMs: 25_000 }).then(
      () => assert.fail("expected a deadline failure"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowError);
    assert.equal(err.deadlineExceeded, true);
    assert.deepEqual((err.payload as { tags: unknown }).tags, ["TimeoutError"]);
    // 10 s + 10 s stay under 25 s; the third sleep crosses it.
    assert.deepEqual(clock.sleeps, [10_000, 10_000, 10_000]);
  });

  it("interrupts a real sleep at the deadline", async () => {
    const started = Date.now();
    const err = await run(sleepy, undefined, { deadlineMs: 100 }).then(
      () => assert.fail("expected a deadline failure"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowError && err.deadlineExceeded);
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  });

  it("does not fire when the run finishes in time", async () => {
    assert.equal(await run("- a:\n    return: ok\n", undefined, { deadlineMs: 1000 }), "ok");
  });
});

describe("onStep tracing", () => {
  it("reports start and end of every step with path, routine and duration", async () => {
    const clock = fakeClock(0);
    const events: StepEvent[] = [];
    await run(
      `
main:
  steps:
    - first:
        call: nap
    - second:
        return: done
nap:
  steps:
    - inner:
        call: sys.sleep
        args:
          seconds: 2
`,
      undefined,
      { ...clock, onStep: (e) => events.push(e) },
    );
    assert.deepEqual(
      events.map((e) => [e.phase, e.step, e.path, e.routine, e.atMs, e.durationMs]),
      [
        ["start", "first", "main.steps[0]", "main", 0, undefined],
        ["start", "inner", "nap.steps[0]", "nap", 0, undefined],
        ["end", "inner", "nap.steps[0]", "nap", 2000, 2000],
        ["end", "first", "main.steps[0]", "main", 2000, 2000],
        ["start", "second", "main.steps[1]", "main", 2000, undefined],
        ["end", "second", "main.steps[1]", "main", 2000, 0],
      ],
    );
  });

  it("attaches the error to the end event of a failing step", async () => {
    const events: StepEvent[] = [];
    await runError("- boom:\n    raise: {code: 3}\n", undefined, { onStep: (e) => events.push(e) });
    const end = events.find((e) => e.phase === "end");
    assert.deepEqual(end?.error, { code: 3 });
  });
});
