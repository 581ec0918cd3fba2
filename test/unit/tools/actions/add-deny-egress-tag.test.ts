import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ComputeInstanceTags } from "../../../../functions/src/adapters/compute/instance-tags.js";
import {
  type ResponseActionsStandIn,
  startResponseActionsStandIn,
} from "../../../../functions/src/local/response-actions-stand-in.js";
import type { InstanceTags } from "../../../../functions/src/ports/response-actions.js";
import { createAddDenyEgressTagTool } from "../../../../functions/src/tools/actions/add-deny-egress-tag.js";
import { createToolRegistry } from "../../../../functions/src/tools/registry.js";
import { approve, CRYPTO, context, errorCode, findingFrom } from "./helpers.js";

const TOOL = "add_deny_egress_tag";
const TAG = "ferret-deny-egress";
const PROJECT = "terra-2d61a51b";
const ZONE = "us-central1-a";
const ID = "5289438569693667937";
const NAME = "saturn-5434a6f7-6739-4843-9b5e-4fa03fe51d76";

describe("add_deny_egress_tag", () => {
  let standIn: ResponseActionsStandIn;
  const finding = findingFrom(CRYPTO);
  before(async () => {
    standIn = await startResponseActionsStandIn({
      instances: [
        { project: PROJECT, zone: ZONE, name: NAME, id: ID, tags: ["jupyter"] },
        { project: PROJECT, zone: ZONE, name: "bastion", id: "42", tags: [] },
      ],
    });
  });
  after(() => standIn.close());
  const registryWith = (tags: InstanceTags) =>
    createToolRegistry([createAddDenyEgressTagTool(tags, { tag: TAG })]);

  it("refuses an instance other than the finding's resource, even approved", async () => {
    const registry = registryWith(new ComputeInstanceTags({ rootUrl: standIn.rootUrl }));
    const args = { project: PROJECT, zone: ZONE, instance: "bastion" };
    const out = await registry.run(TOOL, args, context(finding, [approve(TOOL, args)]));
    assert.equal(out.ok, false);
    assert.equal(out.approvalRequest, undefined);
    assert.match(errorCode(out).message, /not the finding's resource/);
    assert.deepEqual(standIn.instance(PROJECT, ZONE, "bastion")?.tags, []);
  });

  it("refuses a bad zone or project spelling at validation", async () => {
    const registry = registryWith(new ComputeInstanceTags({ rootUrl: standIn.rootUrl }));
    const out = await registry.run(
      TOOL,
      { project: PROJECT, zone: "us-central1", instance: ID },
      context(finding),
    );
    assert.equal(errorCode(out).code, "tool_input");
  });

  it("holds the call with a preview of the current tags, the fingerprint and the tag to add", async () => {
    const registry = registryWith(new ComputeInstanceTags({ rootUrl: standIn.rootUrl }));
    const out = await registry.run(TOOL, { project: PROJECT, zone: ZONE, instance: ID }, context(finding));
    assert.equal(errorCode(out).code, "approval_required");
    const fingerprint = standIn.instance(PROJECT, ZONE, ID)?.fingerprint ?? "";
    assert.ok(fingerprint.length > 0);
    assert.equal(
      out.approvalRequest?.preview,
      `Would set the tags of instance ${NAME} (${PROJECT}/${ZONE}) from [jupyter] to [jupyter, ${TAG}] (fingerprint ${fingerprint}); the deny-all-egress firewall rule then applies to it.`,
    );
    assert.deepEqual(standIn.instance(PROJECT, ZONE, ID)?.tags, ["jupyter"]);
  });

  it("a tags change between the read and the write fails with a retryable conflict (412), and nothing is overwritten", async () => {
    const real = new ComputeInstanceTags({ rootUrl: standIn.rootUrl });
    const racing: InstanceTags = {
      get: async (ref) => {
        const read = await real.get(ref);
        standIn.touchInstance(ref.project, ref.zone, ref.instance);
        return read;
      },
      set: (ref, tags) => real.set(ref, tags),
    };
    const args = { project: PROJECT, zone: ZONE, instance: ID };
    const out = await registryWith(racing).run(TOOL, args, context(finding, [approve(TOOL, args)]));
    assert.equal(out.ok, false);
    assert.equal(errorCode(out).code, "conflict");
    assert.equal(errorCode(out).retryable, true);
    assert.equal(standIn.calls.at(-1)?.status, 412);
    assert.deepEqual(standIn.instance(PROJECT, ZONE, ID)?.tags, ["jupyter"]);
  });

  it("adds the tag under an approval, by id or by the resource's display name, once", async () => {
    const registry = registryWith(new ComputeInstanceTags({ rootUrl: standIn.rootUrl }));
    const args = { project: PROJECT, zone: ZONE, instance: NAME };
    const out = await registry.run(TOOL, args, context(finding, [approve(TOOL, args)]));
    assert.equal(out.ok, true, out.summary);
    assert.deepEqual(standIn.instance(PROJECT, ZONE, ID)?.tags, ["jupyter", TAG]);
    const byId = { project: PROJECT, zone: ZONE, instance: ID };
    const again = await registry.run(TOOL, byId, context(finding, [approve(TOOL, byId)]));
    assert.match(again.summary, /already had tag/);
    assert.deepEqual(standIn.instance(PROJECT, ZONE, ID)?.tags, ["jupyter", TAG]);
  });
});
