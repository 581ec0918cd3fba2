import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import type { AppDeps } from "../../../functions/src/app/deps.js";
import { ConfigError, ModelOutputError } from "../../../functions/src/domain/errors.js";
import { answerWorkflowCall } from "../../../functions/src/entry/workflow-call.js";
import { createLogger } from "../../../functions/src/platform/logger.js";

/**
 * What a workflow function answers when it fails: the body the workflow words the
 * investigation's failure reason from (workflows/investigate.yaml, refusal_message), so it
 * must name the function and carry the error's own message.
 */
const schema = z.object({ investigationId: z.string() });
const logger = createLogger({ minSeverity: "CRITICAL" });
const deps = { logger } as unknown as AppDeps;

describe("answerWorkflowCall's failure bodies", () => {
  it("a refusal names the function and keeps the message, with the status the retry policy reads", async () => {
    const message =
      "offline-playbook cannot plan: the planner context offers no tool that can query logs or intelligence";
    const answer = await answerWorkflowCall(
      "planner",
      schema,
      async () => {
        throw new ModelOutputError(message);
      },
      { investigationId: "inv-1" },
      async () => deps,
      logger,
    );
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.body, {
      error: { function: "planner", code: "model_output", message, retryable: false },
    });
  });

  it("a bad request body names the function too", async () => {
    const answer = await answerWorkflowCall(
      "reflector",
      schema,
      async () => ({}),
      { investigationId: 7 },
      async () => deps,
      logger,
    );
    assert.equal(answer.status, 400);
    assert.equal((answer.body.error as { function?: unknown }).function, "reflector");
  });

  it("a configuration error keeps its words", async () => {
    const answer = await answerWorkflowCall(
      "stepExecutor",
      schema,
      async () => {
        throw new ConfigError("FERRET_LOG_WAREHOUSE=bigquery needs FERRET_BIGQUERY_DATASET");
      },
      { investigationId: "inv-1" },
      async () => deps,
      logger,
    );
    assert.deepEqual(answer.body.error, {
      function: "stepExecutor",
      code: "config",
      message: "FERRET_LOG_WAREHOUSE=bigquery needs FERRET_BIGQUERY_DATASET",
      retryable: false,
    });
  });
});
