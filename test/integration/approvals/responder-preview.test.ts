import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { z } from "zod";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { requestApproval } from "../../../functions/src/app/approval-responder.js";
import type { AppDeps } from "../../../functions/src/app/deps.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import { approvalRequest } from "../../../functions/src/domain/approval.js";
import { approvalIdFor } from "../../../functions/src/domain/approval-record.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { ensureTopology } from "../../../functions/src/local/pubsub-setup.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { defineTool } from "../../../functions/src/tools/port.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildStepResult } from "../../helpers/investigation-builders.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";
import { queuedInvestigation, variantOf } from "../faults/support/findings.js";

/**
 * The dry run a person reads is the responder's, not the step executor's: deployed, only the
 * responder's identity holds the read permissions a preview needs (terraform/response-actions.tf),
 * so the executor's attempt fails with a 403 while the responder's reads the target as it is
 * when the request goes out.
 */
const CRYPTO = fromRoot("examples/scenarios/cryptomining");
const TOOL = "label_instance";
const ARGS: JsonObject = { instance: "etl-worker-1", label: "quarantine" };

describe("the responder reads the dry run it shows", () => {
  const projectId = uniqueProjectId("responder-preview");
  const config = loadConfig({ env: {} });
  let store: FirestoreInvestigationStore;
  let bus: PubSubEventBus;

  function toolbox(preview: () => Promise<string>) {
    return new ToolBox(
      createToolRegistry([
        defineTool({
          name: TOOL,
          description: "Labels an instance",
          input: z.object({ instance: z.string(), label: z.string() }),
          readOnly: false,
          preview,
          run: async () => ({ ok: true, summary: "labelled", data: {} }),
        }),
      ]),
      () => true,
    );
  }

  async function heldInvestigation(label: string) {
    const notification = JSON.parse(readFileSync(join(CRYPTO, "notification.json"), "utf8")) as JsonObject;
    const inv = queuedInvestigation(variantOf(notification, `-${label}`).notification, config, new Date());
    await store.create(inv, [{ type: "created", message: "created" }]);
    // What the step executor held: its own dry run failed for want of the read permission.
    const held = approvalRequest(inv.id, TOOL, ARGS, {
      stepId: "respond",
      preview: "dry run failed: 403 Permission 'compute.instances.get' denied",
    });
    await store.recordStepResult(
      inv.id,
      buildStepResult("respond", {
        toolCalls: [
          {
            id: "c1",
            name: TOOL,
            args: ARGS,
            ok: false,
            summary: `${TOOL} was not run: it waits for a person's approval`,
            error: "approval required",
            durationMs: 5,
            approvalRequest: held,
          },
        ],
      }),
      (current) => ({ investigation: current }),
    );
    return {
      id: inv.id,
      approvalId: approvalIdFor(inv.id, "respond", held.argsDigest),
      digest: held.argsDigest,
    };
  }

  function deps(box: ToolBox): AppDeps {
    return {
      config,
      store,
      bus,
      model: new ScriptedModel({}),
      toolbox: box,
      tables: [],
      logger: silentLogger,
      now: () => new Date(),
    };
  }

  before(async () => {
    await ensureEmulators();
    await ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
    store = new FirestoreInvestigationStore(createFirestore({ projectId }));
    bus = new PubSubEventBus(projectId);
  });

  after(async () => {
    await bus?.close();
  });

  test("the record carries the responder's preview, bound to the same call", async () => {
    const { id, approvalId, digest } = await heldInvestigation("fresh");
    let reads = 0;
    const box = toolbox(async () => {
      reads += 1;
      return "would add label quarantine to etl-worker-1 (labels now: env=prod)";
    });
    const answer = await requestApproval(
      { investigationId: id, stepId: "respond", approvalId, callbackUrl: "http://127.0.0.1:1/cb" },
      deps(box),
    );
    assert.equal(answer.status, "pending");
    const record = (await store.require(id)).approvals?.find((a) => a.approvalId === approvalId);
    assert.equal(
      record?.request.preview,
      "would add label quarantine to etl-worker-1 (labels now: env=prod)",
    );
    assert.equal(
      record?.request.argsDigest,
      digest,
      "the preview changes what is shown, not what is approved",
    );
    assert.deepEqual(record?.request.args, ARGS);
    assert.equal(reads, 1);
  });

  test("a dry run that fails in the responder says so, in ferret's words", async () => {
    const { id, approvalId } = await heldInvestigation("failing");
    const box = toolbox(async () => {
      throw new Error("instance not found");
    });
    await requestApproval(
      { investigationId: id, stepId: "respond", approvalId, callbackUrl: "http://127.0.0.1:1/cb" },
      deps(box),
    );
    const record = (await store.require(id)).approvals?.find((a) => a.approvalId === approvalId);
    assert.equal(record?.request.preview, "dry run failed: instance not found");
  });
});
