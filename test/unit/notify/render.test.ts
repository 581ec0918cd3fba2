import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  renderCompressed,
  renderConclusion,
  renderPlanReply,
  renderReflection,
  renderStepFinished,
  renderStopped,
  renderThreadRoot,
} from "../../../functions/src/notify/blocks.js";
import { sccFindingUrl } from "../../../functions/src/notify/scc-link.js";
import * as fx from "./fixtures.js";

const md = (text: string) => ({ type: "mrkdwn", text, verbatim: true });
const SCC_LINK =
  "<https://console.cloud.google.com/security/command-center/findings?organizationId=123456789&resourceId=organizations%2F123456789%2Fsources%2F987654321%2Ffindings%2Fabcdef0123456789|Open the finding in Security Command Center>";
const FOOTER = {
  type: "context",
  elements: [md(SCC_LINK), md("Investigation inv-0123456789abcdef01234567 · model: gemini-2.5-pro")],
};

describe("thread root", () => {
  it("shows the finding headline, the plan and the console link", () => {
    const root = renderThreadRoot(fx.investigation());
    assert.equal(
      root.text,
      "ferret is investigating 🟠 HIGH Persistence: IAM Anomalous Grant on //cloudresourcemanager.googleapis[.]com/projects/prod-payments",
    );
    assert.deepEqual(root.blocks, [
      {
        type: "header",
        text: { type: "plain_text", text: "🔎 Persistence: IAM Anomalous Grant", emoji: false },
      },
      {
        type: "section",
        fields: [
          md("*Category*\nPersistence: IAM Anomalous Grant"),
          md("*Severity*\n🟠 HIGH"),
          md("*Resource*\n//cloudresourcemanager.googleapis[.]com/projects/prod-payments"),
          md("*Project*\nprod-payments"),
          md("*Event time*\n2024-05-01T10:00:00Z"),
          md("*Class*\nTHREAT"),
        ],
      },
      { type: "section", text: md("A service account was granted roles/owner by an external principal.") },
      { type: "divider" },
      {
        type: "section",
        text: md("*Plan*\n*Objective:* Decide whether the owner grant on prod-payments was malicious"),
      },
      { type: "section", text: md("*Done when*\n• Know who granted the role and from where") },
      {
        type: "section",
        text: md(
          "*Steps* (2)\n" +
            "1. *audit-grant* ✅ done — Find the SetIamPolicy call that granted roles/owner\n      tools: log_analysis\n" +
            "2. *intel-ip* — Look up the caller IP in threat intel\n      tools: threat_intel_lookup · after audit-grant",
        ),
      },
      FOOTER,
    ]);
  });

  it("says planning is under way when there is no plan yet, and offers the plan as a reply later", () => {
    const inv = fx.investigation({ plan: undefined, model: "offline" });
    const root = renderThreadRoot(inv);
    const texts = fx.allTexts(root.blocks);
    assert.ok(texts.includes("⏳ ferret is planning the investigation…"));
    assert.ok(
      texts.includes("Investigation inv-0123456789abcdef01234567 · model: offline playbook model — no LLM"),
    );
    assert.equal(renderPlanReply(inv), undefined);
    assert.equal(
      renderPlanReply(fx.investigation())?.text,
      "Plan: Decide whether the owner grant on prod-payments was malicious",
    );
  });

  it("names the fallback when the LLM gave way to the offline model", () => {
    const texts = fx.allTexts(renderThreadRoot(fx.investigation({ fellBackToOffline: true })).blocks);
    assert.ok(
      texts.includes(
        "Investigation inv-0123456789abcdef01234567 · model: gemini-2.5-pro, then the offline playbook model — no LLM after the LLM became unavailable",
      ),
    );
  });

  it("shows the name but no link for a finding name outside the SCC grammar", () => {
    const inv = fx.investigation({ finding: fx.finding({ name: "organizations/1/sources/2/findings/x|y" }) });
    const texts = fx.allTexts(renderThreadRoot(inv).blocks);
    assert.ok(
      texts.includes(
        "Finding organizations/1/sources/2/findings/x|y (no console link: the name is not a valid SCC finding name)",
      ),
    );
  });
});

describe("progress replies", () => {
  it("a finished step shows outcome, summary, facts, failures and tool call count", () => {
    const message = renderStepFinished(
      fx.investigation(),
      fx.event({ type: "step_finished", stepId: "audit-grant" }),
      fx.stepResult(),
    );
    assert.equal(
      message.text,
      "Step audit-grant done: alice[@]example[.]com granted roles/owner from 203.0.113[.]7 using gcloud.",
    );
    assert.deepEqual(message.blocks, [
      {
        type: "section",
        text: md("✅ *Step audit-grant done* — Find the SetIamPolicy call that granted roles/owner"),
      },
      {
        type: "section",
        text: md("alice[@]example[.]com granted roles/owner from 203.0.113[.]7 using gcloud."),
      },
      {
        type: "section",
        text: md("*Key facts*\n• caller: alice[@]example[.]com\n• callerIp: 203.0.113[.]7"),
      },
      { type: "section", text: md("*Failures*\n• log_analysis: table not found") },
      { type: "context", elements: [md("🔧 2 tool calls (1 failed) · 2 iterations · 4.5s · 1 IOC")] },
    ]);
  });

  it("a failed step leads with the failure and the step error", () => {
    const message = renderStepFinished(
      fx.investigation(),
      fx.event({ type: "step_finished" }),
      fx.stepResult({ status: "failed", outcome: "failed", error: "BigQuery quota exceeded", toolCalls: [] }),
    );
    const texts = fx.allTexts(message.blocks);
    assert.equal(
      texts[0],
      "❌ *Step audit-grant failed* — Find the SetIamPolicy call that granted roles/owner",
    );
    assert.ok(texts.includes("*Failures*\n• step error: BigQuery quota exceeded"));
    assert.ok(texts.includes("🔧 0 tool calls · 2 iterations · 4.5s · 1 IOC"));
  });

  it("a step without a stored result falls back to the event message", () => {
    const message = renderStepFinished(
      fx.investigation(),
      fx.event({ type: "step_finished", message: "step audit-grant finished" }),
      undefined,
    );
    assert.deepEqual(message.blocks, [{ type: "context", elements: [md("🔧 step audit-grant finished")] }]);
  });

  it("a reflection lists insights, applied and refused plan changes and the rationale", () => {
    const message = renderReflection(fx.investigation(), fx.event({ type: "reflected" }), fx.reflection());
    assert.deepEqual(fx.allTexts(message.blocks), [
      "🤔 *Reflection after wave 1* (audit-grant) — objective not yet achieved",
      "*Insights*\n• The grant came from an IP never seen for this user",
      "*Plan changes applied*\n• add *sa-keys*: List keys created for the service account",
      "*Plan changes refused*\n• cancel *intel-ip*: covered by audit-grant — refused: step already ran",
      "Why: Need to know whether persistence was established.",
    ]);
  });

  it("compression is a one-line note", () => {
    const message = renderCompressed(
      fx.investigation(),
      fx.event({ type: "compressed", message: "summarized 42 KB of history; 7 IOCs kept" }),
    );
    assert.deepEqual(message.blocks, [
      { type: "context", elements: [md("🗜️ *Context compressed:* summarized 42 KB of history; 7 IOCs kept")] },
    ]);
  });
});

describe("conclusion", () => {
  it("shows verdict, confidence, severity, summary, ATT&CK, findings, defanged IOCs, actions and questions", () => {
    const message = renderConclusion(fx.investigation(), fx.conclusion());
    assert.equal(
      message.text,
      "🚨 True positive (85%) — Persistence: IAM Anomalous Grant: An external account granted itself owner on prod-payments and created a key.",
    );
    assert.deepEqual(message.blocks, [
      {
        type: "header",
        text: {
          type: "plain_text",
          text: "🚨 True positive — Persistence: IAM Anomalous Grant",
          emoji: false,
        },
      },
      {
        type: "section",
        fields: [
          md("*Verdict*\n🚨 True positive"),
          md("*Confidence*\n85%"),
          md("*Severity*\n🔴 CRITICAL, raised by ferret from SCC's 🟠 HIGH: _no reason given_"),
        ],
      },
      {
        type: "section",
        text: md("*Summary*\nAn external account granted itself owner on prod-payments and created a key."),
      },
      { type: "section", text: md("*MITRE ATT&amp;CK*\n• T1098 Account Manipulation (Persistence)") },
      { type: "divider" },
      {
        type: "section",
        text: md(
          "*Key findings*\n*1.* roles/owner granted by attacker[@]evil.example[.]com\n" +
            "      ↳ _audit-grant · audit logs_: SetIamPolicy from 203.0.113[.]7",
        ),
      },
      {
        type: "section",
        text: md(
          "*Indicators* (defanged, 5)\n" +
            "• ip 203.0.113[.]7 — caller IP\n" +
            "• domain evil.example[.]com\n" +
            "• url hxxps://evil.example[.]com/payload.sh\n" +
            "• email attacker[@]evil.example[.]com\n" +
            "• hash e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ),
      },
      { type: "divider" },
      {
        type: "section",
        text: md(
          "*Recommended actions*\n_Immediately_\n• Revoke the owner binding\n_Soon_\n• Rotate the service account keys\n" +
            "_Later_\n• Review org policy on external members",
        ),
      },
      { type: "section", text: md("*Open questions*\n• Was the key used?") },
      // The footer names the model; no second "Produced by" line repeats it.
      FOOTER,
    ]);
  });

  it("says plainly when no LLM produced it", () => {
    const conclusion = fx.conclusion({
      verdict: "inconclusive",
      confidence: 0.4,
      producedBy: { model: "offline-playbook", offline: true, note: "rules: iam-anomalous-grant v1" },
    });
    const message = renderConclusion(fx.investigation({ model: "offline-playbook" }), conclusion);
    const texts = fx.allTexts(message.blocks);
    assert.equal(texts[0], "❓ Inconclusive — Persistence: IAM Anomalous Grant");
    assert.ok(texts.includes("*Confidence*\n40%"));
    assert.ok(texts.includes("rules: iam-anomalous-grant v1"), "the concluder's own note stays");
    const all = texts.join("\n");
    assert.match(all, /model: offline playbook model — no LLM/, "the footer names the brain");
    assert.equal(all.match(/no LLM/g)?.length, 1, "once (issue 29)");
  });
});

describe("needs_human and failed", () => {
  it("needs_human says why, what was learned, the IOCs so far and what is left", () => {
    const inv = fx.investigation({ status: "needs_human", reason: "3 steps failed in a row" });
    const message = renderStopped("needs_human", inv, fx.event({ type: "needs_human" }), [fx.stepResult()]);
    assert.equal(
      message.text,
      "🙋 Needs a human — Persistence: IAM Anomalous Grant: 3 steps failed in a row",
    );
    const texts = fx.allTexts(message.blocks);
    assert.equal(texts[0], "🙋 Needs a human — Persistence: IAM Anomalous Grant");
    assert.ok(texts.includes("*Why ferret stopped*\n3 steps failed in a row"));
    assert.ok(
      texts.includes(
        "*What was learned so far*\n" +
          "• *audit-grant* (done): alice[@]example[.]com granted roles/owner from 203.0.113[.]7 using gcloud.\n" +
          "      ↳ caller: alice[@]example[.]com\n      ↳ callerIp: 203.0.113[.]7",
      ),
    );
    assert.ok(
      texts.includes("*Indicators seen so far* (defanged, 1)\n• ip 203.0.113[.]7 — caller IP of the grant"),
    );
    assert.ok(texts.includes("*Not done*\n• *intel-ip*: Look up the caller IP in threat intel"));
    assert.ok(
      texts.includes(
        "1 step executed · 1 wave · 0 plan revisions · 3 model calls · 1,200 tokens in · 300 out",
      ),
    );
  });

  it("needs_human shows the concluder's draft verdict, marked as not applied, escaped and defanged", () => {
    const inv = fx.investigation({
      status: "needs_human",
      reason: "the model concluded benign (97%), but threat intel marks ip 203.0.113.66 (stix) as malicious",
      conclusion: fx.conclusion({
        verdict: "benign",
        confidence: 0.97,
        summary: "Scheduled test from 203.0.113.66 <!channel>",
      }),
    });
    const texts = fx.allTexts(
      renderStopped("needs_human", inv, fx.event({ type: "needs_human" }), [fx.stepResult()]).blocks,
    );
    assert.ok(
      texts.includes(
        "*Why ferret stopped*\nthe model concluded benign (97%), but threat intel marks ip 203.0.113[.]66 (stix) as malicious",
      ),
    );
    const draft = texts.find((t) => t.startsWith("*Draft verdict (not applied)*"));
    assert.ok(draft, "the draft verdict is shown");
    assert.match(
      draft,
      /^\*Draft verdict \(not applied\)\*: benign · 97%\nScheduled test from 203\.0\.113\[\.\]66 /,
    );
    assert.doesNotMatch(draft, /<!channel>/);
  });

  it("failed uses the event message when no reason was stored and admits nothing was learned", () => {
    const inv = fx.investigation({ status: "failed", reason: undefined });
    const message = renderStopped(
      "failed",
      inv,
      fx.event({ type: "failed", message: "planner crashed: boom" }),
      [],
    );
    const texts = fx.allTexts(message.blocks);
    assert.equal(texts[0], "💥 Investigation failed — Persistence: IAM Anomalous Grant");
    assert.ok(texts.includes("*Why ferret stopped*\nplanner crashed: boom"));
    assert.ok(texts.includes("*What was learned so far*\nNo step finished before ferret stopped."));
  });
});

describe("SCC console link", () => {
  it("builds the URL only from names matching the finding grammar", () => {
    assert.equal(
      sccFindingUrl("projects/42/sources/7/locations/global/findings/f_1-a")?.toString(),
      "https://console.cloud.google.com/security/command-center/findings?project=42&resourceId=projects%2F42%2Fsources%2F7%2Flocations%2Fglobal%2Ffindings%2Ff_1-a",
    );
    assert.equal(
      sccFindingUrl("folders/9/sources/7/findings/abc")?.searchParams.get("folder"),
      "9",
      "folder-scoped findings link with the folder",
    );
    for (const bad of [
      "organizations/1/sources/2/findings/a b",
      "organizations/1/sources/2/findings/a|b",
      "organizations/1/sources/2/findings/a>b",
      "organizations/1/sources/2/findings/",
      "organizations/<!here>/sources/2/findings/a",
      "billingAccounts/1/sources/2/findings/a",
      "https://evil.example.com/organizations/1/sources/2/findings/a",
      "organizations/1/sources/2/findings/a\nb",
    ]) {
      assert.equal(sccFindingUrl(bad), undefined, bad);
    }
  });
});
