import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { askPlanner } from "../../../functions/src/agent/planner.js";
import type { Finding } from "../../../functions/src/domain/finding/finding.js";
import { planProblems } from "../../../functions/src/domain/plan-rules.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { LOG_TABLES } from "../../../functions/src/sql/log-schema.js";
import { badDomainFinding, bruteForceFinding, cryptominingFinding } from "./support/findings.js";
import { RealTools } from "./support/tools.js";

const tables = LOG_TABLES.map((t) => ({ name: t.name, description: t.description }));

describe("offline planner: tool calls fixed in the plan", () => {
  let tools: RealTools;
  before(async () => {
    tools = await RealTools.create({});
  });
  after(async () => {
    await tools.close();
  });

  const plan = async (finding: Finding, withSchemas: boolean) =>
    (
      await askPlanner({
        investigationId: "inv-plan",
        finding,
        model: createOfflineModel(),
        tools: tools.declarations().map((d) => ({ name: d.name, description: d.description })),
        ...(withSchemas ? { declarations: tools.declarations() } : {}),
        tables,
        maxSteps: 10,
      })
    ).plan;

  it("fixes the first-round calls of standalone steps and marks intel lookups decisive", async () => {
    const p = await plan(cryptominingFinding(), true);
    const intel = p.steps.find((s) => s.id === "intel-iocs");
    assert.ok(intel?.calls, "the intel step has its calls");
    assert.equal(intel.decisive, true);
    assert.deepEqual(
      intel.calls.map((c) => c.tool),
      ["threat_intel_lookup"],
    );
    const indicators = JSON.stringify(intel.calls[0]?.args);
    assert.ok(
      indicators.includes("203.0.113.50") && indicators.includes("pool.minexmr-relay.top"),
      indicators,
    );
    for (const s of p.steps) {
      assert.ok(s.calls && s.calls.length > 0, `standalone step ${s.id} runs without an executor round`);
      assert.ok(
        s.calls.every((c) => s.tools.includes(c.tool)),
        `${s.id} calls only its own tools`,
      );
    }
    assert.deepEqual(
      planProblems(p.steps, { allowedTools: tools.names(), maxSteps: 10 }),
      [],
      "the plan passes the rules a model's plan must pass",
    );
  });

  it("joins the lookup into the follow-up queries, so no step waits to read another (issue 30)", async () => {
    const p = await plan(badDomainFinding(), true);
    const byId = new Map(p.steps.map((s) => [s.id, s]));
    for (const id of ["intel-iocs", "dns-lookups", "flows-followup", "host-logs"]) {
      assert.ok(byId.get(id)?.calls, `${id} has its calls fixed`);
      assert.deepEqual(byId.get(id)?.dependsOn, [], `${id} waits for no step`);
    }
    assert.match(JSON.stringify(byId.get("flows-followup")?.calls), /vpc_flows_to_dns_answers/);
    assert.match(JSON.stringify(byId.get("host-logs")?.calls), /host_syslog_near_dns/);
  });

  it("fixes the calls of a dependency whose dependent waits for order only, and the dependent's too", async () => {
    const p = await plan(bruteForceFinding(), true);
    const byId = new Map(p.steps.map((s) => [s.id, s]));
    const postLogin = byId.get("post-login");
    assert.deepEqual(postLogin?.dependsOn, ["ssh-auth"], "post-login still runs after ssh-auth");
    assert.ok(byId.get("ssh-auth")?.calls, "post-login reads nothing from ssh-auth's result");
    assert.ok(postLogin?.calls, "post-login's values (host, terms, window) come from the finding");
    assert.ok(
      JSON.stringify(postLogin.calls).includes("bastion-2"),
      "the dependent's calls name the finding's host",
    );
  });

  it("fixes nothing when the planner is not given the tools' parameter schemas", async () => {
    const p = await plan(cryptominingFinding(), false);
    assert.ok(p.steps.every((s) => s.calls === undefined && s.decisive === undefined));
  });
});
