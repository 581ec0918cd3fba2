import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { askPlanner } from "../../../functions/src/agent/planner.js";
import { askReflector } from "../../../functions/src/agent/reflector.js";
import { ModelOutputError } from "../../../functions/src/domain/errors.js";
import type { Finding } from "../../../functions/src/domain/finding/finding.js";
import { readySteps } from "../../../functions/src/domain/next-action.js";
import type { Plan } from "../../../functions/src/domain/plan.js";
import { applyPlanUpdates } from "../../../functions/src/domain/plan-rules.js";
import { ACTION_TOOLS } from "../../../functions/src/domain/response-actions.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { LOG_TABLES } from "../../../functions/src/sql/log-schema.js";
import { CRYPTO, findingFrom } from "../tools/actions/helpers.js";
import {
  cryptominingFinding,
  iamGrantFinding,
  leakedKeyFinding,
  publicBucketFinding,
} from "./support/findings.js";
import { result, rowsCall, withStatuses } from "./support/results.js";

const READ_TOOLS = ["log_query", "log_tables", "threat_intel_lookup"];
const tables = LOG_TABLES.map((t) => ({ name: t.name, description: t.description }));
const KEY =
  "//iam.googleapis.com/projects/acme-prod/serviceAccounts/etl-runner@acme-prod.iam.gserviceaccount.com/keys/0123abcd";

async function plan(finding: Finding, tools: string[], maxSteps = 10) {
  const { plan } = await askPlanner({
    investigationId: "inv-respond",
    finding,
    model: createOfflineModel(),
    tools: tools.map((name) => ({ name, description: `${name} tool` })),
    tables,
    maxSteps,
  });
  return plan;
}

function leakedKey(): Finding {
  const f = leakedKeyFinding();
  return { ...f, access: { ...f.access, serviceAccountKeyName: KEY } };
}

const CASES: {
  name: string;
  finding: () => Finding;
  call: { tool: string; args: Record<string, string> };
}[] = [
  {
    name: "leaked key → disable the key that made the call",
    finding: leakedKey,
    call: {
      tool: "disable_service_account_key",
      args: { keyName: KEY.replace("//iam.googleapis.com/", "") },
    },
  },
  {
    name: "crypto mining instance → deny-egress tag",
    finding: () => cryptominingFinding(),
    call: {
      tool: "add_deny_egress_tag",
      args: { project: "acme-prod", zone: "europe-west1-b", instance: "7700112233" },
    },
  },
  {
    name: "anomalous grant → revoke it",
    finding: () => iamGrantFinding(),
    call: {
      tool: "revoke_iam_binding",
      args: {
        project: "projects/acme-prod",
        role: "roles/owner",
        member: "user:helper.contractor@gmail.com",
      },
    },
  },
];

describe("offline planner: response actions", () => {
  for (const c of CASES) {
    it(`${c.name}: one acting step last, after every evidence step, its call fixed from the finding`, async () => {
      const p = await plan(c.finding(), [...READ_TOOLS, ...ACTION_TOOLS]);
      const acting = p.steps.filter((s) =>
        s.tools.some((t) => (ACTION_TOOLS as readonly string[]).includes(t)),
      );
      assert.equal(acting.length, 1);
      const step = acting[0]!;
      assert.equal(p.steps.at(-1)?.id, step.id);
      assert.deepEqual(step.tools, [c.call.tool]);
      assert.deepEqual(step.calls, [c.call]);
      assert.deepEqual(
        [...step.dependsOn].sort(),
        p.steps
          .slice(0, -1)
          .map((s) => s.id)
          .sort(),
      );
    });

    it(`${c.name}: never with actions.enabled empty (the actions are not in the tool registry)`, async () => {
      const p = await plan(c.finding(), READ_TOOLS);
      assert.ok(p.steps.every((s) => s.tools.every((t) => READ_TOOLS.includes(t))));
      assert.ok(p.steps.every((s) => (s.calls ?? []).every((call) => READ_TOOLS.includes(call.tool))));
    });
  }

  it("plans no action for a family without one, even with all enabled", async () => {
    const p = await plan(publicBucketFinding(), [...READ_TOOLS, ...ACTION_TOOLS]);
    assert.ok(p.steps.every((s) => s.tools.every((t) => READ_TOOLS.includes(t))));
  });

  it("plans no action when the finding names no full target (a bare key id)", async () => {
    const p = await plan(leakedKeyFinding(), [...READ_TOOLS, ...ACTION_TOOLS]);
    assert.ok(p.steps.every((s) => !s.tools.includes("disable_service_account_key")));
  });

  it("leaves the acting step out rather than break the step cap", async () => {
    const p = await plan(cryptominingFinding(), [...READ_TOOLS, ...ACTION_TOOLS], 2);
    assert.equal(p.steps.length, 2);
    assert.ok(p.steps.every((s) => !s.tools.includes("add_deny_egress_tag")));
  });
});

describe("offline planner: MCP tools", () => {
  const MCP = ["mcp.edr.query_logs", "mcp.intel.lookup_ioc", "mcp.cmdb.sql_query"];

  it("never plans an MCP tool, even one whose name reads like a log or intel tool", async () => {
    for (const finding of [cryptominingFinding(), iamGrantFinding(), leakedKey(), publicBucketFinding()]) {
      const p = await plan(finding, [...READ_TOOLS, ...MCP]);
      for (const s of p.steps) {
        assert.ok(!s.tools.some((t) => t.startsWith("mcp.")), `${finding.category}: ${s.tools.join(",")}`);
        assert.ok(!(s.calls ?? []).some((c) => c.tool.startsWith("mcp.")));
      }
    }
  });

  it("with only MCP tools offered, refuses to plan rather than use them", async () => {
    await assert.rejects(plan(cryptominingFinding(), MCP), ModelOutputError);
  });
});

/**
 * The real VM Threat Detection finding (test/fixtures/real/scc, leonardo@0903403) with the
 * deny-egress action enabled: its plan ends with the acting step on the instance the finding
 * names, and when the host's logs hold nothing the acting step never gets to ask a person.
 */
describe("offline planner and reflector on a real finding: the acting step waits for confirmation", () => {
  const real = findingFrom(CRYPTO);
  const tools = [...READ_TOOLS, "add_deny_egress_tag"];

  async function reflectOn(p: Plan, revisionsLeft: number) {
    const results = p.steps
      .filter((s) => !s.tools.includes("add_deny_egress_tag"))
      .map((s) => result(s.id, "no_data", [rowsCall("vpc_flows_from_instance", {}, [])]));
    const before = withStatuses(p, results);
    const { draft } = await askReflector({
      investigationId: "inv-real-respond",
      finding: real,
      plan: before,
      results,
      justFinished: results.map((r) => r.stepId),
      model: createOfflineModel(),
      tools,
      actingTools: ["add_deny_egress_tag"],
      maxSteps: 10,
      revisionsLeft,
    });
    const applied = applyPlanUpdates(before, draft.updates, {
      allowedTools: tools,
      maxSteps: 10,
      maxRevisions: 3,
    });
    return { draft, plan: applied.plan };
  }

  it("plans the acting step last, on the instance the finding names", async () => {
    const p = await plan(real, tools);
    const respond = p.steps.at(-1);
    assert.deepEqual(respond?.calls, [
      {
        tool: "add_deny_egress_tag",
        args: { project: "terra-2d61a51b", zone: "us-central1-a", instance: "5289438569693667937" },
      },
    ]);
  });

  it("keeps it pending while wider checks are coming, cancels it in the last revision the plan may take", async () => {
    const p = await plan(real, tools);
    const early = await reflectOn(p, 3);
    assert.equal(early.draft.achieved, false);
    assert.equal(early.plan.steps.find((s) => s.id === "respond")?.status, "pending");
    assert.ok(
      early.draft.updates.some((u) => u.op === "add"),
      "follow-ups widen the search first",
    );

    const last = await reflectOn(p, 1);
    const respond = last.plan.steps.find((s) => s.id === "respond");
    assert.equal(respond?.status, "cancelled");
    assert.match(respond?.cancelReason ?? "", /^not acting: the evidence does not confirm the finding/);
    assert.ok(!readySteps(last.plan).some((s) => s.id === "respond"));
  });
});
