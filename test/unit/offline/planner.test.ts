import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PlannerBrief } from "../../../functions/src/agent/briefs.js";
import { askPlanner } from "../../../functions/src/agent/planner.js";
import { ModelOutputError } from "../../../functions/src/domain/errors.js";
import type { Finding } from "../../../functions/src/domain/finding/finding.js";
import { PlanDraftSchema } from "../../../functions/src/domain/plan.js";
import { planProblems } from "../../../functions/src/domain/plan-rules.js";
import { OFFLINE_MARK } from "../../../functions/src/model/brain.js";
import { generateStructured } from "../../../functions/src/model/structured.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { decodeIntent } from "../../../functions/src/offline-model/step-text.js";
import { LOG_TABLES } from "../../../functions/src/sql/log-schema.js";
import { named } from "../../helpers/briefs.js";
import {
  badDomainFinding,
  bruteForceFinding,
  cryptominingFinding,
  iamGrantFinding,
  leakedKeyFinding,
  makeFinding,
  publicBucketFinding,
} from "./support/findings.js";

const ALL_TOOLS = ["log_query", "log_tables", "threat_intel_lookup"];
const tables = LOG_TABLES.map((t) => ({ name: t.name, description: t.description }));

async function plan(finding: Finding, tools = ALL_TOOLS, maxSteps = 10) {
  const { plan } = await askPlanner({
    investigationId: "inv-plan",
    finding,
    model: createOfflineModel(),
    tools: tools.map((name) => ({ name, description: `${name} tool` })),
    tables,
    maxSteps,
  });
  return plan;
}

/** Per family: the values the plan must carry from the finding into its queries. */
const FAMILIES: { name: string; finding: Finding; mustMention: string[]; kinds: string[] }[] = [
  {
    name: "cryptomining",
    finding: cryptominingFinding(),
    mustMention: ["203.0.113.50", "batch-7", "pool.minexmr-relay.top"],
    kinds: ["intel", "flows", "dns", "host_logs"],
  },
  {
    name: "IAM anomalous grant",
    finding: iamGrantFinding(),
    mustMention: ["helper.contractor@gmail.com", "ops-admin@acme.example"],
    kinds: ["iam_changes", "principal_activity"],
  },
  {
    name: "bad domain",
    finding: badDomainFinding(),
    mustMention: ["update-check.badcdn.xyz", "web-3"],
    kinds: ["intel", "dns", "flows"],
  },
  {
    name: "SSH brute force",
    finding: bruteForceFinding(),
    mustMention: ["198.51.100.77", "bastion-2"],
    kinds: ["ssh_auth", "intel"],
  },
  {
    name: "leaked service-account key",
    finding: leakedKeyFinding(),
    mustMention: ["185.220.101.9", "etl-runner@acme-prod.iam.gserviceaccount.com"],
    kinds: ["intel", "caller_activity", "principal_activity"],
  },
  {
    name: "public bucket",
    finding: publicBucketFinding(),
    mustMention: ["acme-exports-2025"],
    kinds: ["bucket_policy", "bucket_access"],
  },
];

describe("offline planner", () => {
  for (const family of FAMILIES) {
    it(`plans a ${family.name} finding from its own values, with offered tools only`, async () => {
      const p = await plan(family.finding);
      const draft = PlanDraftSchema.parse({
        objective: p.objective,
        successCriteria: p.successCriteria,
        constraints: p.constraints,
        steps: p.steps,
      });
      assert.deepEqual(planProblems(draft.steps, { allowedTools: ALL_TOOLS, maxSteps: 10 }), []);
      assert.ok(p.objective.startsWith(OFFLINE_MARK), "the objective says no LLM wrote it");
      assert.ok(p.constraints.some((c) => /no LLM/.test(c)));
      const text = p.steps.map((s) => s.description).join("\n");
      for (const value of family.mustMention) assert.ok(text.includes(value), `plan mentions ${value}`);
      const kinds = p.steps.map((s) => decodeIntent(s.description)?.kind);
      for (const kind of family.kinds) assert.ok(kinds.includes(kind as never), `plan has a ${kind} step`);
      // Windows come from eventTime (2025-03-04T10:00Z), never from the wall clock.
      for (const s of p.steps) {
        const intent = decodeIntent(s.description);
        const start = intent?.params.start?.[0];
        const end = intent?.params.end?.[0];
        if (!start || !end) continue;
        assert.ok(
          Date.parse(start) < Date.parse(family.finding.eventTime) &&
            Date.parse(end) > Date.parse(family.finding.eventTime),
          `${s.id} window brackets eventTime`,
        );
        assert.ok(Date.parse(end) - Date.parse(family.finding.eventTime) <= 6 * 3_600_000);
      }
      // Intel and log lookups are independent: the first wave has several steps.
      assert.ok(p.steps.filter((s) => s.dependsOn.length === 0).length >= 2);
    });
  }

  it("anchors the cryptomining window at eventTime −6h/+1h", async () => {
    const p = await plan(cryptominingFinding());
    const flows = p.steps.find((s) => s.id === "flows-remote");
    assert.ok(flows);
    assert.deepEqual(decodeIntent(flows.description)?.params, {
      ips: ["203.0.113.50"],
      instance: ["batch-7"],
      start: ["2025-03-04T04:00:00Z"],
      end: ["2025-03-04T11:00:00Z"],
    });
    assert.deepEqual(flows.tools, ["log_query", "log_tables"]);
  });

  it("skips steps whose tool is not offered", async () => {
    const p = await plan(cryptominingFinding(), ["threat_intel_lookup"]);
    assert.ok(p.steps.length >= 1);
    assert.ok(p.steps.every((s) => s.tools.every((t) => t === "threat_intel_lookup")));
    const logsOnly = await plan(iamGrantFinding(), ["log_query"]);
    assert.ok(logsOnly.steps.every((s) => s.tools.length === 1 && s.tools[0] === "log_query"));
  });

  it("respects the step cap and drops dependencies on steps the cap removed", async () => {
    const p = await plan(badDomainFinding(), ALL_TOOLS, 2);
    assert.equal(p.steps.length, 2);
    assert.deepEqual(planProblems(p.steps, { allowedTools: ALL_TOOLS, maxSteps: 2 }), []);
    const full = await plan(bruteForceFinding());
    assert.deepEqual(
      full.steps.find((s) => s.id === "post-login")?.dependsOn,
      ["ssh-auth"],
      "a dependency on a kept step is kept",
    );
  });

  it("still plans something sensible for a category no family knows", async () => {
    const finding = makeFinding({
      category: "Discovery: Service Account Self-Investigation",
      access: { principalEmail: "svc@acme-prod.iam.gserviceaccount.com", callerIp: "198.51.100.3" },
    });
    const p = await plan(finding);
    assert.ok(p.steps.some((s) => s.id === "principal-activity"));
    assert.ok(p.steps.some((s) => s.description.includes("198.51.100.3")));
  });

  it("answers a re-plan request with a valid plan and records what it fixed", async () => {
    const model = createOfflineModel();
    const context: PlannerBrief = {
      role: "planner",
      finding: cryptominingFinding(),
      tools: named(ALL_TOOLS),
      tables: [],
      maxSteps: 4,
      related: [],
      problems: ['step "x" names unknown tool "shell"'],
    };
    const answer = await generateStructured(
      model,
      { brief: context, system: "", messages: [{ role: "user", text: "plan" }] },
      PlanDraftSchema,
    );
    assert.ok(answer.value.steps.length <= 4);
    assert.ok(answer.value.constraints.some((c) => c.includes("unknown tool")));
  });

  it("refuses to plan without tools rather than guess", async () => {
    await assert.rejects(plan(cryptominingFinding(), []), ModelOutputError);
  });
});

describe("routing by catalog", () => {
  it("never routes by tactic prefix, catalogued or not", async () => {
    const { familyOf } = await import("../../../functions/src/offline-model/families.js");
    const external = makeFinding({
      category: "Credential Access: External Member Added To Privileged Group",
    });
    assert.equal(familyOf(external), "admin_change", "not the leaked-credential playbook");
    // An uncatalogued category with a familiar tactic prefix and nothing else to go on.
    const unknown = makeFinding({ category: "Credential Access: Something New" });
    assert.equal(familyOf(unknown), "generic");
    const newGrant = makeFinding({ category: "Privilege Escalation: Anomalous IAM Grant v2" });
    assert.equal(familyOf(newGrant), "iam_grant", "words about the event still count");
  });

  it("plans BUCKET_LOGGING_DISABLED as a posture finding, not with the public-bucket rules", async () => {
    const finding = makeFinding({
      category: "BUCKET_LOGGING_DISABLED",
      findingClass: "MISCONFIGURATION",
      resource: {
        name: "//storage.googleapis.com/acme-site-assets",
        type: "google.cloud.storage.Bucket",
        projectDisplayName: "acme-prod",
      },
    });
    const p = await plan(finding);
    assert.ok(
      p.constraints.some((c) => /misconfiguration or vulnerability playbook/.test(c)),
      p.constraints.join(" | "),
    );
    assert.ok(!p.steps.some((s) => /bucket-(policy|access)/.test(s.id)), p.steps.map((s) => s.id).join(", "));
  });

  it("names the generic playbook and why, never 'unclassified finding finding'", async () => {
    const p = await plan(makeFinding({ category: "Something Google never documented" }));
    const text = JSON.stringify(p);
    assert.match(text, /generic playbook \(the category is not in the catalog\)/);
    assert.doesNotMatch(text, /finding finding/);
  });
});
