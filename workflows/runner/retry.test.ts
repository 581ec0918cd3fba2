import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type HttpResponse, HttpTransportError } from "./index.js";
import { fakeClock, jsonResponse, run, runError, scriptedTransport } from "./test-support.js";

const policyWorkflow = (policy: string) => `
- fetch:
    try:
      call: http.get
      args:
        url: https://api.example.test/thing
      result: response
    retry: \${${policy}}
- out:
    return: \${response.body}
`;

// retry.default_backoff: 1 s, then x1.25 each retry, capped at 60 s.
const DEFAULT_DELAYS_MS = [1000, 1250, 1562.5, 1953.125, 2441.40625];

const ok = jsonResponse(200, { done: true });
const status = (code: number): HttpResponse => jsonResponse(code, { error: code });

describe("http.default_retry", () => {
  for (const code of [429, 502, 503, 504]) {
    it(`retries HTTP ${code} with the default backoff, then succeeds`, async () => {
      const clock = fakeClock();
      const http = scriptedTransport([status(code), status(code), ok]);
      const result = await run(policyWorkflow("http.default_retry"), undefined, { http, ...clock });
      assert.deepEqual(result, { done: true });
      assert.equal(http.requests.length, 3);
      assert.deepEqual(clock.sleeps, DEFAULT_DELAYS_MS.slice(0, 2));
    });
  }

  for (const code of [400, 401, 404, 500]) {
    it(`does not retry HTTP ${code}`, async () => {
      const clock = fakeClock();
      const http = scriptedTransport([status(code), ok]);
      const payload = await runError(policyWorkflow("http.default_retry"), undefined, { http, ...clock });
      assert.equal((payload as { code: number }).code, code);
      assert.equal(http.requests.length, 1);
      assert.deepEqual(clock.sleeps, []);
    });
  }

  for (const [kind, tag] of [
    ["connection", "ConnectionError"],
    ["connection-failed", "ConnectionFailedError"],
    ["timeout", "TimeoutError"],
  ] as const) {
    it(`retries ${tag}`, async () => {
      const clock = fakeClock();
      const http = scriptedTransport([new HttpTransportError(kind, "network"), ok]);
      assert.deepEqual(await run(policyWorkflow("http.default_retry"), undefined, { http, ...clock }), {
        done: true,
      });
      assert.deepEqual(clock.sleeps, [1000]);
    });
  }

  it("gives up after max_retries 5 (6 attempts) and raises the last error", async () => {
    const clock = fakeClock();
    const http = scriptedTransport(Array.from({ length: 6 }, () => status(503)));
    const payload = await runError(policyWorkflow("http.default_retry"), undefined, { http, ...clock });
    assert.deepEqual((payload as { tags: unknown }).tags, ["HttpError"]);
    assert.equal(http.requests.length, 6);
    assert.deepEqual(clock.sleeps, DEFAULT_DELAYS_MS);
  });
});

describe("http.default_retry_non_idempotent", () => {
  for (const code of [429, 503]) {
    it(`retries HTTP ${code}`, async () => {
      const clock = fakeClock();
      const http = scriptedTransport([status(code), ok]);
      await run(policyWorkflow("http.default_retry_non_idempotent"), undefined, { http, ...clock });
      assert.equal(http.requests.length, 2);
      assert.deepEqual(clock.sleeps, [1000]);
    });
  }

  it("retries ConnectionFailedError (the request never left)", async () => {
    const clock = fakeClock();
    const http = scriptedTransport([new HttpTransportError("connection-failed", "refused"), ok]);
    await run(policyWorkflow("http.default_retry_non_idempotent"), undefined, { http, ...clock });
    assert.equal(http.requests.length, 2);
  });

  for (const failure of [
    status(502),
    status(504),
    new HttpTransportError("connection", "reset"),
    new HttpTransportError("timeout", "slow"),
  ]) {
    const label = failure instanceof Error ? failure.kind : `HTTP ${failure.status}`;
    it(`does not retry ${label}, which may have reached the server`, async () => {
      const clock = fakeClock();
      const http = scriptedTransport([failure, ok]);
      await runError(policyWorkflow("http.default_retry_non_idempotent"), undefined, { http, ...clock });
      assert.equal(http.requests.length, 1);
      assert.deepEqual(clock.sleeps, []);
    });
  }
});

describe("custom retry policies", () => {
  it("uses a default predicate with custom max_retries and backoff, capping delays at max_delay", async () => {
    const clock = fakeClock();
    const http = scriptedTransport([status(503), status(503), status(503), status(503), status(503)]);
    const yaml = `
- fetch:
    try:
      call: http.get
      args:
        url: https://api.example.test/thing
    retry:
      predicate: \${http.default_retry_predicate}
      max_retries: 4
      backoff:
        initial_delay: 2
        max_delay: 10
        multiplier: 3
`;
    await runError(yaml, undefined, { http, ...clock });
    assert.equal(http.requests.length, 5);
    assert.deepEqual(clock.sleeps, [2000, 6000, 10000, 10000]);
  });

  it("calls a predicate subworkflow with the error and retries while it returns true", async () => {
    const clock = fakeClock();
    const yaml = `
main:
  steps:
    - init:
        assign:
          - attempts: 0
    - flaky:
        try:
          steps:
            - count:
                assign:
                  - attempts: \${attempts + 1}
            - maybe_fail:
                switch:
                  - condition: \${attempts < 3}
                    raise:
                      code: \${attempts}
                      reason: transient
        retry:
          predicate: \${only_transient}
          max_retries: 5
          backoff:
            initial_delay: 1
            max_delay: 60
            multiplier: 2
    - out:
        return: \${attempts}
only_transient:
  params: [e]
  steps:
    - check:
        return: \${e.reason == "transient"}
`;
    assert.equal(await run(yaml, undefined, clock), 3);
    assert.deepEqual(clock.sleeps, [1000, 2000]);
  });

  it("stops retrying when the predicate returns false and hands the error to except", async () => {
    const clock = fakeClock();
    const yaml = `
main:
  steps:
    - flaky:
        try:
          raise:
            reason: permanent
        retry:
          predicate: \${only_transient}
          max_retries: 5
          backoff:
            initial_delay: 1
            max_delay: 60
            multiplier: 2
        except:
          as: e
          steps:
            - out:
                return: '\${"gave up: " + e.reason}'
only_transient:
  params: [e]
  steps:
    - check:
        return: \${e.reason == "transient"}
`;
    assert.equal(await run(yaml, undefined, clock), "gave up: permanent");
    assert.deepEqual(clock.sleeps, []);
  });

  it("raises TypeError when a predicate does not return a boolean", async () => {
    const yaml = `
main:
  steps:
    - t:
        try:
          raise: x
        retry:
          predicate: \${bad}
          max_retries: 1
          backoff:
            initial_delay: 1
            max_delay: 1
            multiplier: 1
bad:
  params: [e]
  steps:
    - r:
        return: yes please
`;
    const payload = await runError(yaml, undefined, fakeClock());
    assert.deepEqual((payload as { tags: unknown }).tags, ["TypeError"]);
  });

  it("re-runs the whole try block on each attempt", async () => {
    const clock = fakeClock();
    const http = scriptedTransport([status(503), ok]);
    const yaml = `
- init:
    assign:
      - log: []
- fetch:
    try:
      steps:
        - before:
            assign:
              - log: \${list.concat(log, "before")}
        - get:
            call: http.get
            args:
              url: https://api.example.test/thing
    retry: \${http.default_retry}
- out:
    return: \${log}
`;
    assert.deepEqual(await run(yaml, undefined, { http, ...clock }), ["before", "before"]);
  });
});
