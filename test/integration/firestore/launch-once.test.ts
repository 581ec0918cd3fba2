import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { launchOnce } from "../../../functions/src/app/launch.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import type { WorkflowLauncher } from "../../../functions/src/ports/workflow-launcher.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { queuedInvestigation, variantOf } from "../faults/support/findings.js";

const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));

/** Fails its first launch (the Executions API answering 503), then starts executions. */
class FlakyLauncher implements WorkflowLauncher {
  calls = 0;
  async launch(id: string): Promise<{ executionId: string }> {
    this.calls++;
    if (this.calls === 1) throw new Error("503 from the Executions API");
    return { executionId: `exec-${id}-${this.calls}` };
  }
}

describe("launching a queued investigation's workflow once (the protocol ingest shares)", () => {
  const projectId = uniqueProjectId("launch-once");
  let store: FirestoreInvestigationStore;
  before(async () => {
    await ensureEmulators();
    store = new FirestoreInvestigationStore(createFirestore({ projectId }));
  });

  test("a failed launch releases its claim, the retry launches at once, and later asks launch nothing", async () => {
    const config = loadConfig({ env: {} });
    const v = variantOf(scenario.notification as JsonObject, "-launch-once");
    const queued = queuedInvestigation(v.notification, config, new Date());
    await store.create(queued, [{ type: "created", message: "New finding" }]);
    const launcher = new FlakyLauncher();
    const deps = { store, launcher, now: () => new Date() };

    await assert.rejects(launchOnce(queued.id, deps), /503/);
    const released = await store.require(queued.id);
    assert.equal(released.launchClaimedAt, undefined, "the claim is released, not left to expire");
    assert.equal(released.executionId, undefined);

    const again = await launchOnce(queued.id, deps);
    assert.deepEqual(again, { launched: true, executionId: `exec-${queued.id}-2` });
    assert.equal((await store.require(queued.id)).executionId, `exec-${queued.id}-2`);

    const [third, fourth] = await Promise.all([launchOnce(queued.id, deps), launchOnce(queued.id, deps)]);
    assert.deepEqual([third.launched, fourth.launched], [false, false]);
    assert.equal(launcher.calls, 2, "one failed and one successful launch, nothing more");
  });
});
