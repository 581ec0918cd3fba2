import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { askReflector } from "../../../functions/src/agent/reflector.js";
import type { Finding } from "../../../functions/src/domain/finding/finding.js";
import { readySteps } from "../../../functions/src/domain/next-action.js";
import type { Plan, PlanUpdate } from "../../../functions/src/domain/plan.js";
import { applyPlanUpdates } from "../../../functions/src/domain/plan-rules.js";
import { ReflectionDraftSchema } from "../../../functions/src/domain/reflection.js";
import { isActionTool } from "../../../functions/src/domain/response-actions.js";
import type { StepResult } from "../../../functions/src/domain/results.js";
import { OFFLINE_MARK } from "../../../functions/src/model/brain.js";
import type { ToolDeclaration } from "../../../functions/src/model/port.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { decodeIntent } from "../../../functions/src/offline-model/step-text.js";
import { bruteForceFinding, cryptominingFinding } from "./support/findings.js";
import { intelCall, plan, result, rowsCall, step, withStatuses } from "./support/results.js";
import { RealTools } from "./support/tools.js";

const TOOLS = ["log_query", "log_tables", "threat_intel_lookup"];
const FLOWS =
  "Count VPC flows [plan: flows ips=203.0.113.50 instance=batch-7 start=2025-03-04T04:00:00Z end=2025-03-04T11:00:00Z]";
const INTEL = "Look up [plan: intel ips=203.0.113.50 domains=pool.minexmr-relay.top]";

async function reflect(
  finding: Finding,
  p: Plan,
  results: StepResult[],
  options: {
    revisionsLeft?: number;
    maxSteps?: number;
    tools?: string[];
    declarations?: ToolDeclaration[];
  } = {},
) {
  const tools = options.tools ?? TOOLS;
  const { draft } = await askReflector({
    investigationId: "inv-r",
    finding,
    plan: p,
    results,
    justFinished: results.map((r) => r.stepId),
    model: createOfflineModel(),
    tools,
    actingTools: tools.filter(isActionTool),
    ...(options.declarations ? { declarations: options.declarations } : {}),
    maxSteps: options.maxSteps ?? 10,
    revisionsLeft: options.revisionsLeft ?? 3,
  });
  ReflectionDraftSchema.parse(draft);
  const applied = applyPlanUpdates(p, draft.updates, {
    allowedTools: tools,
    maxSteps: options.maxSteps ?? 10,
    maxRevisions: 3,
  });
  return { draft, applied };
}

/** Five flow rows from the instance to the mining pool's port: decisive with a malicious intel verdict. */
const POOL_FLOWS = Array.from({ length: 5 }, (_, i) => ({
  dest_ip: "203.0.113.50",
  dest_port: 3333,
  flows: 10,
  bytes_sent: 900_000,
  first_seen: `2025-03-04T08:0${i}:00Z`,
  last_seen: `2025-03-04T09:0${i}:00Z`,
}));

const adds = (updates: readonly PlanUpdate[]) => updates.flatMap((u) => (u.op === "add" ? [u.step] : []));

describe("offline reflector", () => {
  it("adds a widened step after a no_data result, under a new id, that plan rules accept", async () => {
    const finding = cryptominingFinding();
    const results = [
      result("flows-remote", "no_data", [rowsCall("vpc_flows_to_ip", { ip: "203.0.113.50" }, [])]),
    ];
    const p = withStatuses(
      plan([
        step("flows-remote", FLOWS, ["log_query", "log_tables"]),
        step("host-logs", "syslog [plan: host_logs instance=batch-7]", ["log_query"]),
      ]),
      results,
    );
    const { draft, applied } = await reflect(finding, p, results);
    assert.equal(draft.achieved, false);
    const [added] = adds(draft.updates);
    assert.equal(added?.id, "flows-remote-wide");
    const intent = decodeIntent(added?.description ?? "");
    assert.equal(intent?.kind, "flows");
    assert.deepEqual(intent?.params.ips, ["203.0.113.50"]);
    assert.ok(
      Date.parse(intent?.params.start?.[0] ?? "") < Date.parse("2025-03-04T04:00:00Z"),
      "earlier start",
    );
    assert.deepEqual(applied.refused, []);
    assert.ok(applied.plan.steps.some((s) => s.id === "flows-remote-wide" && s.status === "pending"));
    assert.ok(draft.rationale.startsWith(OFFLINE_MARK));
  });

  it("never re-adds a cancelled id; the next alternative gets a fresh id and another source", async () => {
    const finding = cryptominingFinding();
    const results = [
      result("flows-remote", "no_data", [rowsCall("vpc_flows_to_ip", { ip: "203.0.113.50" }, [])]),
    ];
    const p = withStatuses(
      plan(
        [
          step("flows-remote", FLOWS, ["log_query"]),
          step("flows-remote-wide", `${FLOWS} wider`, ["log_query"], {
            status: "cancelled",
            cancelReason: "too broad",
          }),
        ],
        1,
      ),
      results,
    );
    const { draft, applied } = await reflect(finding, p, results);
    const ids = adds(draft.updates).map((s) => s.id);
    assert.ok(!ids.includes("flows-remote-wide"));
    assert.equal(ids[0], "flows-remote-alt");
    assert.equal(
      decodeIntent(adds(draft.updates)[0]?.description ?? "")?.kind,
      "dns",
      "flows → DNS for the pool domain",
    );
    assert.deepEqual(applied.refused, []);
  });

  it("prefers another source after a failed step", async () => {
    const finding = bruteForceFinding();
    const results = [
      result("ssh-auth", "failed", [rowsCall("ssh_logins_on_host", { instance: "bastion-2" }, [])]),
    ];
    results[0]!.toolCalls[0]!.ok = false;
    const p = withStatuses(
      plan([
        step(
          "ssh-auth",
          "sshd [plan: ssh_auth instance=bastion-2 ips=198.51.100.77 start=2025-03-04T04:00:00Z end=2025-03-04T11:00:00Z]",
          ["log_query"],
        ),
      ]),
      results,
    );
    const { draft } = await reflect(finding, p, results);
    const [added] = adds(draft.updates);
    assert.equal(added?.id, "ssh-auth-alt");
    assert.equal(decodeIntent(added?.description ?? "")?.kind, "flows");
  });

  it("changes nothing when no revisions are left, and adds nothing when the plan is full", async () => {
    const finding = cryptominingFinding();
    const results = [result("flows-remote", "no_data")];
    const p = withStatuses(plan([step("flows-remote", FLOWS, ["log_query"])]), results);
    assert.deepEqual((await reflect(finding, p, results, { revisionsLeft: 0 })).draft.updates, []);
    assert.deepEqual(adds((await reflect(finding, p, results, { maxSteps: 1 })).draft.updates), []);
  });

  it("adds an intel step for indicators the results surfaced that intel has not checked", async () => {
    const finding = cryptominingFinding();
    const results = [
      result("intel-iocs", "answered", [
        intelCall([{ type: "ip", value: "203.0.113.50", verdict: "unknown" }]),
      ]),
      result(
        "egress-top",
        "answered",
        [],
        [
          { type: "ip", value: "198.51.100.23", context: "flows" },
          { type: "ip", value: "203.0.113.50", context: "flows" },
          { type: "ip", value: "10.1.0.9", context: "internal" },
        ],
      ),
    ];
    const p = withStatuses(
      plan([
        step("intel-iocs", INTEL, ["threat_intel_lookup"]),
        step("egress-top", "egress [plan: egress instance=batch-7]", ["log_query"]),
      ]),
      results,
    );
    const { draft } = await reflect(finding, p, results);
    const intel = adds(draft.updates).find((s) => s.id === "intel-new-1");
    assert.ok(intel);
    assert.deepEqual(
      decodeIntent(intel.description)?.params.ips,
      ["198.51.100.23"],
      "only the new public IP",
    );
    assert.deepEqual(intel.tools, ["threat_intel_lookup"]);
  });

  describe("with the tools' schemas", () => {
    let tools: RealTools;
    before(async () => {
      tools = await RealTools.create({});
    });
    after(async () => tools.close());

    it("fixes the calls of a step it adds with every value in hand, so no step executor round runs it", async () => {
      const finding = cryptominingFinding();
      const results = [
        result("intel-iocs", "answered", [
          intelCall([{ type: "ip", value: "203.0.113.50", verdict: "unknown" }]),
        ]),
        result("egress-top", "answered", [], [{ type: "ip", value: "198.51.100.23", context: "flows" }]),
      ];
      const p = withStatuses(
        plan([
          step("intel-iocs", INTEL, ["threat_intel_lookup"]),
          step("egress-top", "egress [plan: egress instance=batch-7]", ["log_query"]),
        ]),
        results,
      );
      const bare = adds((await reflect(finding, p, results)).draft.updates).find(
        (s) => s.id === "intel-new-1",
      );
      assert.equal(bare?.calls, undefined, "without schemas the step executor runs it");
      const { draft, applied } = await reflect(finding, p, results, { declarations: tools.declarations() });
      const fixed = adds(draft.updates).find((s) => s.id === "intel-new-1");
      assert.ok(fixed?.calls, JSON.stringify(fixed));
      assert.deepEqual(
        fixed.calls.map((c) => c.tool),
        ["threat_intel_lookup"],
      );
      assert.match(JSON.stringify(fixed.calls[0]?.args), /198\.51\.100\.23/);
      assert.ok(applied.plan.steps.some((st) => st.id === "intel-new-1" && st.calls?.length));
    });
  });

  it("declares the objective achieved on decisive evidence and cancels what is moot", async () => {
    const finding = cryptominingFinding();
    const flows = POOL_FLOWS;
    const results = [
      result("intel-iocs", "answered", [
        intelCall([{ type: "ip", value: "203.0.113.50", verdict: "malicious", tags: ["mining-pool"] }]),
      ]),
      result("egress-top", "answered", [rowsCall("vpc_flows_from_instance", { instance: "batch-7" }, flows)]),
    ];
    const p = withStatuses(
      plan([
        step("intel-iocs", INTEL, ["threat_intel_lookup"]),
        step("egress-top", "egress [plan: egress instance=batch-7]", ["log_query"]),
        step("host-logs", "syslog [plan: host_logs instance=batch-7]", ["log_query"]),
      ]),
      results,
    );
    const { draft, applied } = await reflect(finding, p, results);
    assert.equal(draft.achieved, true);
    assert.deepEqual(draft.updates, [
      {
        op: "cancel",
        id: "host-logs",
        reason: "moot: the evidence already decides the verdict (true_positive)",
      },
    ]);
    assert.equal(applied.plan.steps.find((s) => s.id === "host-logs")?.status, "cancelled");
    assert.ok(draft.insights.some((i) => /true_positive/.test(i)));
  });

  describe("an acting step (a built-in response action)", () => {
    const WITH_ACTION = [...TOOLS, "add_deny_egress_tag"];
    const respond = (status: "pending" | "done" = "pending") =>
      step("respond", "Cut the instance's egress", ["add_deny_egress_tag"], {
        dependsOn: ["intel-iocs", "egress-top", "host-logs"],
        status,
      });
    const evidence = (intelVerdict: "malicious" | "unknown") => [
      result("intel-iocs", "answered", [
        intelCall([
          {
            type: "ip",
            value: "203.0.113.50",
            verdict: intelVerdict,
            tags: intelVerdict === "malicious" ? ["mining-pool"] : [],
          },
        ]),
      ]),
      result("egress-top", "answered", [
        rowsCall("vpc_flows_from_instance", { instance: "batch-7" }, POOL_FLOWS),
      ]),
    ];
    const planWith = (results: StepResult[], respondStep: ReturnType<typeof respond>, hostLogs = "pending") =>
      withStatuses(
        plan([
          step("intel-iocs", INTEL, ["threat_intel_lookup"]),
          step("egress-top", "egress [plan: egress instance=batch-7]", ["log_query"]),
          step("host-logs", "syslog [plan: host_logs instance=batch-7]", ["log_query"], {
            status: hostLogs as "pending",
          }),
          respondStep,
        ]),
        results,
      );

    it("keeps it when the evidence confirms the finding: the moot checks go, it waits only for the evidence that is done, and the objective waits for it", async () => {
      const results = evidence("malicious");
      const { draft, applied } = await reflect(cryptominingFinding(), planWith(results, respond()), results, {
        tools: WITH_ACTION,
      });
      assert.equal(draft.achieved, false, "the response step runs before the conclusion");
      assert.deepEqual(draft.updates, [
        {
          op: "cancel",
          id: "host-logs",
          reason: "moot: the evidence already decides the verdict (true_positive)",
        },
        { op: "update", id: "respond", dependsOn: ["intel-iocs", "egress-top"] },
      ]);
      assert.deepEqual(applied.refused, []);
      assert.deepEqual(
        readySteps(applied.plan).map((st) => st.id),
        ["respond"],
        "the acting step is ready to run next",
      );
      assert.match(draft.rationale, /waits for a person's approval/);
    });

    it("is achieved once the response step has run", async () => {
      const results = evidence("malicious");
      const p = planWith(
        results,
        { ...respond("done"), dependsOn: ["intel-iocs", "egress-top"] },
        "cancelled",
      );
      const { draft } = await reflect(cryptominingFinding(), p, results, { tools: WITH_ACTION });
      assert.equal(draft.achieved, true);
      assert.deepEqual(draft.updates, []);
    });

    it("cancels it when only it is left and the evidence does not confirm the finding", async () => {
      const results = evidence("unknown").slice(0, 1);
      const p = planWith(results, { ...respond(), dependsOn: ["intel-iocs"] }, "cancelled");
      const withoutEgress = { ...p, steps: p.steps.filter((st) => st.id !== "egress-top") };
      const { draft, applied } = await reflect(cryptominingFinding(), withoutEgress, results, {
        tools: WITH_ACTION,
      });
      assert.equal(draft.achieved, false);
      const cancel = draft.updates.find((u) => u.op === "cancel" && u.id === "respond");
      assert.match(
        cancel?.op === "cancel" ? cancel.reason : "",
        /^not acting: the evidence does not confirm the finding/,
      );
      assert.deepEqual(readySteps(applied.plan), []);
    });
  });

  it("cancels a pending step whose dependency failed", async () => {
    const finding = bruteForceFinding();
    const results = [result("ssh-auth", "failed")];
    const p = withStatuses(
      plan([
        step("ssh-auth", "sshd [plan: ssh_auth instance=bastion-2]", ["log_query"]),
        step("post-login", "after [plan: host_logs instance=bastion-2 terms=sudo]", ["log_query"], {
          dependsOn: ["ssh-auth"],
        }),
      ]),
      results,
    );
    const { draft } = await reflect(finding, p, results);
    assert.ok(draft.updates.some((u) => u.op === "cancel" && u.id === "post-login"));
  });
});
