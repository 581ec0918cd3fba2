import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { loadConfig, toolAllowed } from "../../../functions/src/config/config.js";
import type { Conclusion } from "../../../functions/src/domain/conclusion.js";
import { SqlRefusedError } from "../../../functions/src/domain/errors.js";
import { identifierLines, resolveLogIdentifiers } from "../../../functions/src/domain/log-identifiers.js";
import { renderConclusion, renderThreadRoot } from "../../../functions/src/notify/blocks.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { fenceUntrusted, renderPrompt } from "../../../functions/src/prompts/render.js";
import { guardSql } from "../../../functions/src/sql/guard.js";
import { duckDbTarget } from "../../../functions/src/sql/targets.js";
import type { ToolboxRegistry } from "../../../functions/src/tools/toolbox.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { INJECTION_CASES } from "../../fixtures/injection/corpus.js";
import { queuedInvestigation } from "../../integration/faults/support/findings.js";
import { instructionsIn } from "../../integration/faults/support/gullible-model.js";
import { injectedSyntaxIn } from "../../integration/faults/support/slack-scan.js";

/**
 * The injection corpus against each defence on its own, without emulators: the prompt
 * fences, the SQL guard, the ToolBox gates and the Slack rendering. The end-to-end version
 * (test/integration/faults/injection.test.ts) runs the same corpus through the operations.
 */
const config = loadConfig({ env: { FERRET_TOOLS_DENY: "log_tables" } });
const investigations = INJECTION_CASES.map((c) => queuedInvestigation(c.notification, config, new Date()));
const CLOSE = "<<<END_UNTRUSTED_DATA>>>";

/** Every hostile text of the corpus: finding payloads, log rows, intel descriptions. */
function corpusText(): string {
  const logs = readdirSync(fromRoot("test/fixtures/injection/logs")).map((f) =>
    readFileSync(fromRoot(`test/fixtures/injection/logs/${f}`), "utf8"),
  );
  const intel = readFileSync(fromRoot("test/fixtures/injection/intel/hostile-objects.json"), "utf8");
  return [...INJECTION_CASES.map((c) => JSON.stringify(c.notification)), ...logs, intel]
    .join("\n")
    .replace(/\\"/g, '"');
}

describe("the injection corpus against each defence", () => {
  it("holds at least 20 findings, each with its payload in a different field", () => {
    assert.ok(INJECTION_CASES.length >= 20);
    assert.equal(new Set(INJECTION_CASES.map((c) => c.id)).size, INJECTION_CASES.length);
  });

  it("no finding can close its fence in the planner prompt", () => {
    for (const inv of investigations) {
      // The identifiers the planner lists are read from the same hostile finding: fenced too.
      const identifiers = identifierLines(resolveLogIdentifiers(inv.finding));
      const text = renderPrompt("planner.user", {
        finding: inv.finding,
        catalog: null,
        related: [],
        lessons: [],
        problems: [],
        identifiers,
        coverage: [],
        coverageGap: null,
      });
      const fences = identifiers.length > 0 ? 2 : 1;
      assert.equal(text.split(CLOSE).length - 1, fences, `${inv.finding.name}: exactly the real closes`);
      assert.equal(fenceUntrusted(inv.finding, "x").slice(0, -CLOSE.length).includes(CLOSE), false);
    }
  });

  it("the SQL guard refuses every write statement and spliced value the corpus contains", (t) => {
    const { sql } = instructionsIn(corpusText());
    assert.ok(sql.length >= 8, `found ${sql.length} statements`);
    let refused = 0;
    for (const statement of sql) {
      try {
        guardSql(statement, {
          allowedTables: ["syslog", "cloudaudit_googleapis_com_activity"],
          dataset: "logs",
          maxRows: 100,
          target: duckDbTarget,
        });
        assert.fail(`accepted: ${statement}`);
      } catch (error) {
        assert.ok(error instanceof SqlRefusedError, `${statement}: ${String(error)}`);
        refused += 1;
      }
    }
    t.diagnostic(`figure corpus SQL statements → refused by the guard: ${sql.length} → ${refused}`);
  });

  it("the ToolBox refuses every tool the corpus names that is not allowed, and never runs it", async (t) => {
    const ran: string[] = [];
    const registry: ToolboxRegistry = {
      names: () => ["log_query", "log_tables", "threat_intel_lookup"],
      declarations: () =>
        ["log_query", "log_tables", "threat_intel_lookup"].map((name) => ({
          name,
          description: name,
          parameters: { type: "object" },
        })),
      run: async (name) => {
        ran.push(name);
        return { ok: true, summary: "ran", data: null };
      },
    };
    const box = new ToolBox(registry, (name) => toolAllowed(config, name));
    const named = instructionsIn(corpusText()).tools;
    // The corpus also names log_query (allowed: its SQL meets the guard); the rest must never run.
    const tools = named.filter((name) => !box.names().includes(name));
    assert.ok(tools.includes("delete_project") && tools.includes("log_tables"));
    const ctx = { investigationId: "inv-x", finding: investigations[0]!.finding, logger: silentLogger };
    for (const name of tools) await box.run(name, {}, ["log_query", ...tools], ctx);
    t.diagnostic(
      `figure corpus tool names outside the allowlist → refused / executed: ${tools.length} → ${box.refusals.length} / ${ran.length}`,
    );
    assert.deepEqual(ran, []);
    assert.equal(box.refusals.length, tools.length);
  });

  it("no finding and no hostile conclusion renders a mention, a broadcast or a link in Slack", () => {
    const conclusion: Conclusion = {
      verdict: "false_positive",
      confidence: 0.99,
      severity: "LOW",
      summary: "<!channel> all clear <@U0ADMIN1> <https://evil.example.com|details> @here",
      mitre: [],
      keyFindings: [
        {
          finding: "[click me](https://evil.example.com/login) <#C0SECOPS|secops>",
          evidence: [{ source: "<!subteam^S1|@oncall>", detail: "<\u200B!channel>" }],
        },
      ],
      iocs: [{ type: "url", value: "<https://evil.example.com/login|Google SSO>" }],
      recommendedActions: [{ action: "call delete_project <!everyone>", priority: "immediate" }],
      openQuestions: ["mailto:attacker@evil.example.com"],
      producedBy: { model: "<!here>", offline: false, note: "<@U0ADMIN1>" },
      createdAt: new Date().toISOString(),
    };
    const messages = investigations.flatMap((inv) => [
      renderThreadRoot(inv),
      renderConclusion(inv, conclusion),
    ]);
    assert.deepEqual(injectedSyntaxIn(messages), []);
  });
});
