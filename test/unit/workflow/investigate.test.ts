/**
 * workflows/investigate.yaml on the local runner with scripted function answers and a clock
 * that moves only when the workflow sleeps or a scripted call takes time: the HTTP timeouts
 * come from the functions' own timeouts, the deadline holds across retries, and a permission
 * error still reaches the investigation (or the execution's error) as the original error.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, it } from "node:test";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import {
  type HttpRequest,
  type HttpResponse,
  loadWorkflow,
  runWorkflow,
  WorkflowError,
} from "../../../workflows/runner/index.js";

const workflow = loadWorkflow(readFileSync(fromRoot("workflows/investigate.yaml"), "utf8"), {
  sourceName: "investigate.yaml",
});

const URLS = {
  FERRET_PLANNER_URL: "http://planner.test",
  FERRET_STEP_EXECUTOR_URL: "http://step.test",
  FERRET_REFLECTOR_URL: "http://reflector.test",
  FERRET_CONCLUDER_URL: "http://concluder.test",
  FERRET_COMPRESSOR_URL: "http://compressor.test",
};

type Answer = { status: number; body?: unknown; takesSeconds?: number };
type Script = (request: HttpRequest, body: Record<string, unknown>) => Answer;

interface Call {
  host: string;
  body: Record<string, unknown>;
  atSeconds: number;
}

/**
 * The HTTP timeouts the runner arms, in call order: the runner bounds each request with a
 * setTimeout of the call's `timeout`. The scripted transport answers at once, so none fires.
 */
let armed: number[] = [];
const realSetTimeout = globalThis.setTimeout;
beforeEach(() => {
  armed = [];
  const recording = (handler: () => void, ms?: number): NodeJS.Timeout => {
    if (typeof ms === "number" && ms >= 1_000) armed.push(ms / 1000);
    return realSetTimeout(handler, ms);
  };
  globalThis.setTimeout = recording as typeof setTimeout;
});
afterEach(() => {
  globalThis.setTimeout = realSetTimeout;
});

async function investigate(
  script: Script,
  options: { env?: Record<string, string>; deadlineSeconds?: number } = {},
): Promise<{ result?: unknown; error?: unknown; calls: Call[]; elapsedSeconds: number }> {
  const start = 1_700_000_000_000;
  let now = start;
  const calls: Call[] = [];
  const http = async (request: HttpRequest): Promise<HttpResponse> => {
    const body = JSON.parse(request.body ?? "{}") as Record<string, unknown>;
    calls.push({ host: new URL(request.url).host, body, atSeconds: (now - start) / 1000 });
    const answer = script(request, body);
    now += (answer.takesSeconds ?? 0) * 1000;
    return {
      status: answer.status,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(answer.body ?? {}),
    };
  };
  const run = runWorkflow(
    workflow,
    { investigationId: "inv-1", deadlineSeconds: options.deadlineSeconds ?? 1800 },
    {
      env: { ...URLS, ...options.env },
      http,
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    },
  );
  try {
    const result = await run;
    return { result, calls, elapsedSeconds: (now - start) / 1000 };
  } catch (error) {
    assert.ok(error instanceof WorkflowError, `expected a WorkflowError, got ${String(error)}`);
    return { error: error.payload, calls, elapsedSeconds: (now - start) / 1000 };
  }
}

const concludeAtOnce: Script = (request) => {
  const host = new URL(request.url).host;
  if (host === "planner.test") return { status: 200, body: { next: { kind: "conclude", reason: "done" } } };
  if (host === "concluder.test") return { status: 200, body: { status: "concluded" } };
  return { status: 500 };
};

describe("HTTP timeouts follow the functions' timeouts", () => {
  it("waits 30 s longer than each function may run, from FERRET_<FUNCTION>_TIMEOUT_SECONDS", async () => {
    const run = await investigate(concludeAtOnce, {
      env: { FERRET_PLANNER_TIMEOUT_SECONDS: "1200", FERRET_CONCLUDER_TIMEOUT_SECONDS: "420" },
    });
    assert.deepEqual(run.result, { status: "concluded" });
    assert.deepEqual(
      run.calls.map((c) => c.host),
      ["planner.test", "concluder.test"],
    );
    assert.deepEqual(armed, [1230, 450]);
  });

  it("never arms a call past the investigation's deadline", async () => {
    const run = await investigate(concludeAtOnce, {
      env: { FERRET_PLANNER_TIMEOUT_SECONDS: "1200" },
      deadlineSeconds: 200,
    });
    assert.deepEqual(run.result, { status: "concluded" });
    assert.deepEqual(armed, [200, 200]);
  });

  it("caps a call at the 1800 s Workflows allows", async () => {
    await investigate(concludeAtOnce, {
      env: { FERRET_PLANNER_TIMEOUT_SECONDS: "1790" },
      deadlineSeconds: 3600,
    });
    assert.equal(armed[0], 1800);
  });
});

describe("the deadline holds across retries", () => {
  it("stops retrying a failing function when the deadline passes, then marks the investigation failed", async () => {
    // Each planner attempt takes 60 s and answers 503; the deadline is 150 s away.
    const run = await investigate(
      (request, body) => {
        const host = new URL(request.url).host;
        if (host === "planner.test") return { status: 503, takesSeconds: 60 };
        if (host === "concluder.test" && body.mode === "fail")
          return { status: 200, body: { status: "failed" } };
        return { status: 500 };
      },
      { deadlineSeconds: 150 },
    );
    const planner = run.calls.filter((c) => c.host === "planner.test");
    assert.ok(planner.length >= 2, "the 503 was retried");
    for (const call of planner) assert.ok(call.atSeconds < 150, `planner called at ${call.atSeconds}s`);
    const [markFailed, ...more] = run.calls.filter((c) => c.host === "concluder.test");
    assert.equal(more.length, 0);
    assert.equal(markFailed?.body.mode, "fail");
    // Attempts end at 60, 121 and 183 s; the next wait would end past the 150 s deadline.
    assert.match(
      String(markFailed?.body.reason),
      /deadline leaves no time for another attempt after: calling http:\/\/planner\.test failed: HTTP server responded with error code 503/,
    );
    assert.deepEqual((run.error as { tags?: unknown }).tags, ["DeadlineExceeded"]);
    // Marking it failed got a budget of its own, but the investigation did not run on.
    assert.ok(markFailed && markFailed.atSeconds <= 150 + 60, `marked failed at ${markFailed?.atSeconds}s`);
  });

  it("does not sleep through the deadline: gives up as soon as the next wait would reach it", async () => {
    // Instant 503s with a 20 s deadline: attempts at 0, 1, 3, 7 and 15 s; the next wait (16 s)
    // would end at 31 s, past the deadline, so the investigation is marked failed at 15 s.
    const run = await investigate(
      (request, body) => {
        const host = new URL(request.url).host;
        if (host === "planner.test") return { status: 503 };
        if (host === "concluder.test" && body.mode === "fail")
          return { status: 200, body: { status: "failed" } };
        return { status: 500 };
      },
      { deadlineSeconds: 20 },
    );
    assert.deepEqual(
      run.calls.filter((c) => c.host === "planner.test").map((c) => c.atSeconds),
      [0, 1, 3, 7, 15],
    );
    const markFailed = run.calls.find((c) => c.host === "concluder.test");
    assert.equal(markFailed?.body.mode, "fail");
    assert.equal(markFailed?.atSeconds, 15, "marked failed before the deadline, not after a useless wait");
    assert.deepEqual((run.error as { tags?: unknown }).tags, ["DeadlineExceeded"]);
  });

  it("gives up after 9 attempts even with time left", async () => {
    const run = await investigate((request, body) => {
      const host = new URL(request.url).host;
      if (host === "planner.test") return { status: 502 };
      if (host === "concluder.test" && body.mode === "fail")
        return { status: 200, body: { status: "failed" } };
      return { status: 500 };
    });
    assert.equal(run.calls.filter((c) => c.host === "planner.test").length, 9);
    assert.equal((run.error as { code?: unknown }).code, 502);
    assert.ok(run.elapsedSeconds < 180, `retried for ${run.elapsedSeconds}s`);
  });

  it("does not retry an error a retry cannot fix", async () => {
    const run = await investigate((request, body) => {
      const host = new URL(request.url).host;
      if (host === "planner.test") return { status: 400, body: { error: "bad request" } };
      if (host === "concluder.test" && body.mode === "fail")
        return { status: 200, body: { status: "failed" } };
      return { status: 500 };
    });
    assert.equal(run.calls.filter((c) => c.host === "planner.test").length, 1);
    assert.equal((run.error as { code?: unknown }).code, 400);
  });
});

describe("a permission error still reaches the investigation", () => {
  it("retries a 403 while a fresh invoker grant propagates", async () => {
    let refusals = 2;
    const run = await investigate((request, body) => {
      if (new URL(request.url).host === "planner.test" && refusals > 0) {
        refusals -= 1;
        return { status: 403 };
      }
      return concludeAtOnce(request, body);
    });
    assert.deepEqual(run.result, { status: "concluded" });
    assert.equal(run.calls.filter((c) => c.host === "planner.test").length, 3);
  });

  it("marks the investigation failed with the original error in the reason", async () => {
    const run = await investigate((request, body) => {
      const host = new URL(request.url).host;
      if (host === "planner.test") return { status: 403 };
      if (host === "concluder.test" && body.mode === "fail")
        return { status: 200, body: { status: "failed" } };
      return { status: 500 };
    });
    const fail = run.calls.find((c) => c.host === "concluder.test");
    // No ferret body: Cloud Run's IAM check refused the call; the reason says which call and what is missing.
    assert.equal(
      fail?.body.reason,
      "calling http://planner.test was refused (HTTP server responded with error code 403): the workflow's service account needs roles/run.invoker on that function",
    );
    assert.equal((run.error as { code?: unknown }).code, 403);
  });

  it("when the concluder refuses too, the execution fails with the original error, not the concluder's", async () => {
    const run = await investigate((request) => {
      const host = new URL(request.url).host;
      if (host === "planner.test") return { status: 401 };
      if (host === "concluder.test") return { status: 403 };
      return { status: 500 };
    });
    const error = run.error as { message?: unknown; tags?: unknown; code?: unknown };
    assert.equal(error.code, 401);
    assert.deepEqual(error.tags, ["HttpError"]);
    assert.equal(
      error.message,
      "calling http://planner.test was refused (HTTP server responded with error code 401): the workflow's service account needs roles/run.invoker on that function; marking the investigation failed also failed: calling http://concluder.test was refused (HTTP server responded with error code 403): the workflow's service account needs roles/run.invoker on that function",
    );
    assert.ok(run.calls.filter((c) => c.host === "concluder.test").length > 1, "marking failed was retried");
  });
});

/** The body a ferret function answers a failure with (entry/workflow-call.ts). */
function refusal(fn: string, code: string, message: string, retryable = false) {
  return { error: { function: fn, code, message, retryable } };
}

describe("a function's refusal reaches the investigation in its own words (issue 26)", () => {
  const PLANNER_422 =
    "offline-playbook cannot plan: the planner context offers no tool that can query logs or intelligence";

  it("the planner's 422: the reason is its message, never the status line", async () => {
    const run = await investigate((request, body) => {
      const host = new URL(request.url).host;
      if (host === "planner.test")
        return { status: 422, body: refusal("planner", "model_output", PLANNER_422) };
      if (host === "concluder.test" && body.mode === "fail")
        return { status: 200, body: { status: "failed" } };
      return { status: 500 };
    });
    assert.equal(run.calls.filter((c) => c.host === "planner.test").length, 1, "a 422 is not retried");
    const fail = run.calls.find((c) => c.host === "concluder.test");
    assert.equal(fail?.body.mode, "fail");
    assert.equal(fail?.body.reason, `the planner refused: ${PLANNER_422}`);
    assert.doesNotMatch(String(fail?.body.reason), /HTTP|422/);
    // The execution's own error says the same, with the status kept as data.
    const error = run.error as { message?: unknown; code?: unknown; tags?: unknown };
    assert.equal(error.message, `the planner refused: ${PLANNER_422}`);
    assert.equal(error.code, 422);
    assert.deepEqual(error.tags, ["HttpError"]);
  });

  it("a step that fails inside the parallel wave: the reason is that step's message, not UnhandledBranchError", async () => {
    const run = await investigate((request, body) => {
      const host = new URL(request.url).host;
      if (host === "planner.test")
        return { status: 200, body: { next: { kind: "execute", stepIds: ["a", "b", "c"], reason: "plan" } } };
      if (host === "step.test" && body.stepId === "a") return { status: 200, body: { status: "done" } };
      if (host === "step.test")
        return {
          status: 500,
          body: refusal(
            "stepExecutor",
            "internal",
            `step ${String(body.stepId)}: Cannot read properties of undefined`,
          ),
        };
      if (host === "concluder.test" && body.mode === "fail")
        return { status: 200, body: { status: "failed" } };
      return { status: 500 };
    });
    const fail = run.calls.find((c) => c.host === "concluder.test");
    assert.match(
      String(fail?.body.reason),
      /^the stepExecutor failed: step [bc]: Cannot read properties of undefined \(and 1 more failed step\(s\)\)$/,
    );
    assert.deepEqual((run.error as { tags?: unknown }).tags, ["UnhandledBranchError"]);
  });

  it("a retryable failure that outlives the deadline names the function's last words", async () => {
    const run = await investigate(
      (request, body) => {
        const host = new URL(request.url).host;
        if (host === "planner.test")
          return {
            status: 503,
            body: refusal("planner", "model_unavailable", "Gemini answered 503 UNAVAILABLE", true),
          };
        if (host === "concluder.test" && body.mode === "fail")
          return { status: 200, body: { status: "failed" } };
        return { status: 500 };
      },
      { deadlineSeconds: 20 },
    );
    const fail = run.calls.find((c) => c.host === "concluder.test");
    assert.equal(
      fail?.body.reason,
      "the investigation deadline leaves no time for another attempt after: the planner failed: Gemini answered 503 UNAVAILABLE",
    );
  });

  it("a body that is not ferret's (text, or JSON without error.message) falls back to which call failed", async () => {
    const run = await investigate((request, body) => {
      const host = new URL(request.url).host;
      if (host === "planner.test") return { status: 400, body: { error: "bad request" } };
      if (host === "concluder.test" && body.mode === "fail")
        return { status: 200, body: { status: "failed" } };
      return { status: 500 };
    });
    const fail = run.calls.find((c) => c.host === "concluder.test");
    assert.equal(
      fail?.body.reason,
      "calling http://planner.test failed: HTTP server responded with error code 400",
    );
  });
});
