import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type CallbackServer, startCallbackServer } from "./callback-server.js";
import type { LogEntry } from "./runtime/options.js";
import { run, runError } from "./test-support.js";

// The reference's basic callback example, with a timeout the tests can wait out.
const BASIC = `
- create_callback:
    call: events.create_callback_endpoint
    args:
      http_callback_method: "POST"
    result: callback_details
- print_callback_details:
    call: sys.log
    args:
      severity: "INFO"
      text: \${"Listening for callbacks on " + callback_details.url}
- await_callback:
    call: events.await_callback
    args:
      callback: \${callback_details}
      timeout: 5
    result: callback_request
- return_callback_result:
    return: \${callback_request}
`;

const TOKENS: Record<string, string> = {
  "Bearer approver-token": "serviceAccount:ferret-approval@p.iam.gserviceaccount.com",
  "Bearer other-token": "user:someone@example.com",
};

describe("events.create_callback_endpoint / events.await_callback", () => {
  let server: CallbackServer;
  before(async () => {
    server = await startCallbackServer({
      identify: (authorization) => (authorization ? TOKENS[authorization] : undefined),
      allowed: ["serviceAccount:ferret-approval@p.iam.gserviceaccount.com"],
    });
  });
  after(async () => {
    await server.close();
  });

  /** Sends callbacks to the URL the workflow logs, in order, and records each status. */
  function caller(requests: { method?: string; auth?: string; body?: unknown }[]) {
    const statuses: number[] = [];
    let sent: Promise<void> = Promise.resolve();
    const onLog = (entry: LogEntry) => {
      const url = entry.text?.replace("Listening for callbacks on ", "");
      if (!url?.startsWith("http")) return;
      sent = (async () => {
        for (const r of requests) {
          const res = await fetch(`${url}?decision=approve`, {
            method: r.method ?? "POST",
            headers: { "content-type": "application/json", ...(r.auth ? { authorization: r.auth } : {}) },
            ...(r.body !== undefined ? { body: JSON.stringify(r.body) } : {}),
          });
          statuses.push(res.status);
        }
      })();
    };
    return { statuses, onLog, done: () => sent };
  }

  it("returns the callback request of the allowed identity; refuses others, which do not resume the execution", async () => {
    const { statuses, onLog, done } = caller([
      { body: { decision: "approve" } },
      { auth: "Bearer other-token", body: { decision: "approve" } },
      { method: "PUT", auth: "Bearer approver-token", body: {} },
      { auth: "Bearer approver-token", body: { decision: "deny", by: "U0APPROVER" } },
    ]);
    const result = (await run(BASIC, undefined, { callbacks: server, onLog })) as {
      http_request: { body: unknown; method: string; query: Record<string, string>; url: string };
      received_time: string;
      type: string;
    };
    await done();
    assert.deepEqual(statuses, [401, 403, 405, 200]);
    assert.equal(result.type, "HTTP");
    assert.equal(result.http_request.method, "POST");
    assert.deepEqual(result.http_request.body, { decision: "deny", by: "U0APPROVER" });
    assert.deepEqual(result.http_request.query, { decision: "approve" });
    assert.match(result.http_request.url, /^\/callbacks\//);
    assert.match(result.received_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it("raises TimeoutError when no callback arrives in time, which the workflow can catch", async () => {
    const yaml = `
- create:
    call: events.create_callback_endpoint
    result: cb
- wait:
    try:
      call: events.await_callback
      args:
        callback: \${cb}
        timeout: 0.2
      result: got
    except:
      as: e
      steps:
        - timed_out:
            return: \${e.tags}
- answered:
    return: "answered"
`;
    assert.deepEqual(await run(yaml, undefined, { callbacks: server }), ["TimeoutError"]);
  });

  it("keeps a callback that arrives before the wait", async () => {
    const yaml = `
- create:
    call: events.create_callback_endpoint
    result: cb
- announce:
    call: sys.log
    args:
      text: \${"Listening for callbacks on " + cb.url}
- pause:
    call: sys.sleep
    args:
      seconds: 0.3
- wait:
    call: events.await_callback
    args:
      callback: \${cb}
      timeout: 0.1
    result: got
- done:
    return: \${got.http_request.body}
`;
    const { onLog } = caller([{ auth: "Bearer approver-token", body: { early: true } }]);
    assert.deepEqual(await run(yaml, undefined, { callbacks: server, onLog }), { early: true });
  });

  it("refuses a method outside the documented set, a callback without url, and a runner without endpoints", async () => {
    const bad = (method: string) => `
- create:
    call: events.create_callback_endpoint
    args:
      http_callback_method: "${method}"
    result: cb
- done:
    return: \${cb}
`;
    assert.deepEqual(
      ((await runError(bad("TRACE"), undefined, { callbacks: server })) as { tags: string[] }).tags,
      ["ValueError"],
    );
    const noUrl = `
- wait:
    call: events.await_callback
    args:
      callback: {}
    result: got
- done:
    return: \${got}
`;
    assert.deepEqual(((await runError(noUrl, undefined, { callbacks: server })) as { tags: string[] }).tags, [
      "ValueError",
    ]);
    assert.deepEqual(((await runError(bad("POST"))) as { tags: string[] }).tags, ["SystemError"]);
  });
});
