import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ConfigError } from "../../../functions/src/domain/errors.js";
import { type StackOptions, startLocalStack } from "../../../functions/src/local/stack.js";

/**
 * What `terraform plan` refuses (the precondition in terraform/functions.tf), the local stack
 * refuses before it starts anything: instance caps below the governor's concurrency × the
 * workflow's fan-out (decision 0052).
 */
const options = (extra: Pick<StackOptions, "env"> & Partial<StackOptions>): StackOptions => ({
  projectId: "ferret-capacity-unit",
  workDir: mkdtempSync(join(tmpdir(), "ferret-capacity-")),
  sweepPeriodMs: 0,
  ...extra,
});

describe("the local stack's capacity rule", () => {
  it("refuses a step-executor cap one below 10 investigations × fan-out 4", async () => {
    await assert.rejects(
      startLocalStack(options({ env: {}, capacity: { stepExecutor: { maxInstances: 39 } } })),
      (error: unknown) =>
        error instanceof ConfigError &&
        /stepExecutor: 39 instance\(s\) × 1 request\(s\) = 39 at once < governor 10 investigations × fan-out 4 = 40/.test(
          error.message,
        ),
    );
  });

  it("refuses a governor the default caps cannot carry, naming every short function", async () => {
    await assert.rejects(
      startLocalStack(options({ env: { FERRET_GOVERNOR_MAX_CONCURRENT: "11" } })),
      (error: unknown) =>
        error instanceof ConfigError &&
        ["planner", "stepExecutor", "reflector", "concluder", "compressor", "responder"].every((name) =>
          error.message.includes(`${name}: `),
        ),
    );
  });

  it("counts concurrency: fewer instances taking more requests each carry the same load", async () => {
    // 10 × 4 = 40 passes the rule; the stack then goes on to start the emulators, which this
    // unit test does not want, so a governor of 11 keeps the refusal to the other functions.
    await assert.rejects(
      startLocalStack(
        options({
          env: { FERRET_GOVERNOR_MAX_CONCURRENT: "11" },
          capacity: { stepExecutor: { maxInstances: 11, concurrency: 4 } },
        }),
      ),
      (error: unknown) => error instanceof ConfigError && !error.message.includes("stepExecutor: "),
    );
  });
});
