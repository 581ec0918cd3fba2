import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import type { AppDeps } from "../../../functions/src/app/deps.js";
import { ConfigError, ModelOutputError } from "../../../functions/src/domain/errors.js";
import { createLogger } from "../../../functions/src/platform/logger.js";
import { planner } from "../../../functions/src/roles/planner.js";
import { workflow, workflowRoleDefinition } from "../../../functions/src/roles/role.js";
import { InvestigationRefSchema } from "../../../functions/src/roles/workflow-requests.js";

/**
 * What a workflow role answers: the body the workflow reads (workflows/investigate.yaml), and
 * when it fails the body the workflow words the investigation's failure reason from
 * (refusal_message), so it must name the function and carry the error's own message.
 */
const logger = createLogger({ minSeverity: "CRITICAL" });
const deps = { logger } as unknown as AppDeps;
const ID = `inv-${"a".repeat(24)}`;

/** A role whose run is the test's: the answer schema is the planner's. */
function roleRunning(name: string, run: () => Promise<unknown>) {
  return workflow(name, "FERRET_TEST_URL", async () =>
    workflowRoleDefinition({
      name,
      needs: { tools: false, chat: false },
      request: InvestigationRefSchema,
      response: planner.response,
      // Answers the types would refuse, as a bug could produce them at run time.
      run: async () => (await run()) as never,
    }),
  );
}

describe("a workflow role's answers", () => {
  it("a refusal names the function and keeps the message, with the status the retry policy reads", async () => {
    const message =
      "offline-playbook cannot plan: the planner context offers no tool that can query logs or intelligence";
    const role = roleRunning("planner", async () => {
      throw new ModelOutputError(message);
    });
    const answer = await role.call({ investigationId: ID }, async () => deps, logger);
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.body, {
      error: { function: "planner", code: "model_output", message, retryable: false },
    });
  });

  it("a bad request body names the function too", async () => {
    const role = roleRunning("reflector", async () => ({ next: { kind: "conclude", reason: "x" } }));
    const answer = await role.call({ investigationId: 7 }, async () => deps, logger);
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.body, {
      error: {
        function: "reflector",
        code: "invalid_input",
        message: "investigationId: Invalid input: expected string, received number",
        retryable: false,
      },
    });
  });

  it("a configuration error keeps its words", async () => {
    const role = roleRunning("stepExecutor", async () => {
      throw new ConfigError("FERRET_LOG_WAREHOUSE=bigquery needs FERRET_BIGQUERY_DATASET");
    });
    const answer = await role.call({ investigationId: ID }, async () => deps, logger);
    assert.deepEqual(answer.body, {
      error: {
        function: "stepExecutor",
        code: "config",
        message: "FERRET_LOG_WAREHOUSE=bigquery needs FERRET_BIGQUERY_DATASET",
        retryable: false,
      },
    });
  });

  it("an answer is what the role's response schema says, unknown fields left out", async () => {
    const role = roleRunning("planner", async () => ({
      next: { kind: "execute", stepIds: ["s1"], debug: "internal" },
      extra: true,
    }));
    const answer = await role.call({ investigationId: ID }, async () => deps, logger);
    assert.deepEqual(answer, { status: 200, body: { next: { kind: "execute", stepIds: ["s1"] } } });
  });

  it("an answer the schema refuses is ferret's bug: a 500 the workflow does not retry, never the bad body", async () => {
    const role = roleRunning("planner", async () => ({ next: { kind: "wait" } }));
    const answer = await role.call({ investigationId: ID }, async () => deps, logger);
    assert.equal(answer.status, 500);
    const { error } = answer.body as {
      error: { function: string; code: string; message: string; retryable: boolean };
    };
    assert.equal(error.function, "planner");
    assert.equal(error.code, "internal");
    assert.equal(error.retryable, false);
    assert.match(error.message, /^ferret bug: the planner answer does not match its schema: next\.kind: /);
  });

  it("a role's file that fails to load fails the call, and the next call loads it again", async () => {
    let loads = 0;
    const role = workflow("planner", "FERRET_PLANNER_URL", async () => {
      loads++;
      if (loads === 1) throw new Error("Cannot find module './planner.js'");
      return workflowRoleDefinition({
        name: "planner",
        needs: { tools: false, chat: false },
        request: InvestigationRefSchema,
        response: z.object({ ok: z.boolean() }),
        run: async () => ({ ok: true }),
      });
    });
    const first = await role.call({ investigationId: ID }, async () => deps, logger);
    assert.equal(first.status, 500);
    assert.match(JSON.stringify(first.body), /Cannot find module/);
    assert.deepEqual(await role.call({ investigationId: ID }, async () => deps, logger), {
      status: 200,
      body: { ok: true },
    });
    assert.equal(loads, 2);
  });
});
