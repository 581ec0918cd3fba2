/**
 * The in-process transport that eval, the bench and the budget and injection tests run
 * workflows/investigate.yaml through: each function's URL is answered by its operation with
 * the HTTP function's validation and error statuses, and a workflow that fails is reported
 * with the workflow's own error unless it marked the investigation failed.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AppDeps } from "../../../functions/src/app/deps.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import { NotFoundError } from "../../../functions/src/domain/errors.js";
import type { Investigation } from "../../../functions/src/domain/investigation.js";
import { inProcessTransport, investigateWith } from "../../../functions/src/local/in-process-workflow.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { InvestigationStore } from "../../../functions/src/ports/investigation-store.js";
import { WorkflowError } from "../../../workflows/runner/index.js";

const ID = "inv-0123456789abcdef01234567";
const config = loadConfig({ env: {} });

function post(url: string, body: unknown) {
  return {
    method: "POST",
    url,
    headers: {},
    body: JSON.stringify(body),
    signal: new AbortController().signal,
  };
}

/** Only get() is reached on these paths: the operations never run. */
function storeWith(status: Investigation["status"]): InvestigationStore {
  return { get: async () => ({ id: ID, status }) as Investigation } as unknown as InvestigationStore;
}

describe("in-process transport", () => {
  const neverDeps = async (): Promise<AppDeps> => {
    throw new Error("no dependencies should be built for this request");
  };

  it("answers 404 for a URL that is no function", async () => {
    const send = inProcessTransport(neverDeps, { logger: silentLogger });
    const answer = await send(post("in-process://notifier/", { investigationId: ID }));
    assert.equal(answer.status, 404);
  });

  it("refuses an invalid body with 400 before building anything, as the HTTP function does", async () => {
    const send = inProcessTransport(neverDeps, { logger: silentLogger });
    const answer = await send(post("in-process://stepExecutor/", { investigationId: ID }));
    assert.equal(answer.status, 400);
    const body = JSON.parse(answer.body) as { error: { code: string; message: string; retryable: boolean } };
    assert.equal(body.error.code, "invalid_input");
    assert.match(body.error.message, /stepId/);
    assert.equal(body.error.retryable, false);
  });
});

describe("investigateWith runs the deployed YAML", () => {
  const missing = async (): Promise<AppDeps> => {
    throw new NotFoundError(`investigation ${ID} does not exist`);
  };

  it("takes the workflow's except path: the planner's 404 is not retried, the concluder is asked to mark it failed", async () => {
    const calls: string[] = [];
    await assert.rejects(
      investigateWith(
        ID,
        missing,
        { store: storeWith("queued"), config, logger: silentLogger },
        {
          around: async (fn, call) => {
            calls.push(fn);
            return call();
          },
        },
      ),
      (error: unknown) =>
        error instanceof WorkflowError &&
        // Each function's own words, never the bare status.
        /^the planner refused: investigation inv-\w+ does not exist; marking the investigation failed also failed: the concluder refused: investigation inv-\w+ does not exist/.test(
          error.message,
        ),
    );
    assert.deepEqual(calls, ["planner", "concluder"]);
  });

  it("returns the investigation when the workflow failed after marking it failed", async () => {
    const inv = await investigateWith(ID, missing, {
      store: storeWith("failed"),
      config,
      logger: silentLogger,
    });
    assert.equal(inv.status, "failed");
  });
});
