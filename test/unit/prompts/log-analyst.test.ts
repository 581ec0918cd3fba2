import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findingForAnalyst } from "../../../functions/src/log-analyst/prompt.js";
import { LOG_ANALYST_TOOLS } from "../../../functions/src/log-analyst/tool-names.js";
import { renderPrompt } from "../../../functions/src/prompts/render.js";
import { LOG_TABLES } from "../../../functions/src/sql/log-schema.js";
import {
  assertFencedOnce,
  assertNoData,
  hostileFinding,
  INJECTION,
  INJECTION_PHRASE,
  splitFences,
} from "./support.js";

const tables = LOG_TABLES.map((t) => ({ name: t.name, description: t.description }));
const runbooks = [
  {
    name: "vpc_flows_from_instance",
    params: "instance, start, end",
    description: "Where one VM connected to.",
  },
  {
    name: "host_syslog_search",
    params: "instance, term, start, end",
    description: "Syslog lines with a term.",
  },
];
const system = (dialect: "bigquery" | "duckdb") =>
  renderPrompt("log-analyst.system", {
    dialect,
    tables,
    runbooks,
    maxIterations: 16,
    tools: LOG_ANALYST_TOOLS,
  });

describe("prompts/log-analyst.system.liquid", () => {
  it("tells the dialect, the tables, the runbooks and the tool-round cap", () => {
    const text = system("bigquery");
    assert.ok(text.includes("Write BigQuery Standard SQL (GoogleSQL)."));
    assert.ok(!text.includes("DuckDB"), "no local-engine note on BigQuery");
    for (const t of tables) assert.ok(text.includes(`- \`${t.name}\`: ${t.description}`), t.name);
    assert.ok(text.includes("- `vpc_flows_from_instance`(instance, start, end): Where one VM connected to."));
    assert.ok(text.includes("You have at most 16 rounds of tool calls"));
    for (const name of Object.values(LOG_ANALYST_TOOLS)) assert.ok(text.includes(`\`${name}\``), name);
    assertNoData(text);
  });

  it("says DuckDB runs the same BigQuery subset locally", () => {
    assert.match(system("duckdb"), /local DuckDB warehouse that accepts the same subset: write BigQuery SQL/);
  });

  it("states LIMIT and time discipline anchored on eventTime, never the wall clock", () => {
    const text = system("bigquery");
    assert.match(
      text,
      /Every query is bounded in time\. @start and @end default to the session window, which is anchored on the finding's eventTime/,
    );
    assert.match(text, /Never use CURRENT_TIMESTAMP\(\), CURRENT_DATE\(\) or the wall clock/);
    assert.match(text, /always give a LIMIT/);
  });

  it("teaches unexpected-result recovery: check the real values before concluding", () => {
    const text = system("bigquery");
    assert.ok(text.includes("## Unexpected result recovery"));
    assert.match(
      text,
      /Zero rows, a missing expected value or odd values mean "check", not "nothing happened"/,
    );
    assert.ok(text.includes(`Look at the real values with \`${LOG_ANALYST_TOOLS.distinctValues}\``));
    assert.match(text, /Only after that report absence, and say what you checked/);
  });

  it("asks for findings in the answer format, and to name memory ids it relied on", () => {
    const text = system("bigquery");
    assert.ok(text.includes('{"outcome": "answered" | "no_data" | "failed", "summary":'));
    assert.ok(text.includes('"openQuestions"'));
    assert.match(text, /say so in a fact that names its id/);
  });

  for (const missing of ["dialect", "tables", "runbooks", "maxIterations", "tools"] as const) {
    it(`throws when ${missing} is missing`, () => {
      const vars: Record<string, unknown> = {
        dialect: "bigquery",
        tables,
        runbooks,
        maxIterations: 16,
        tools: LOG_ANALYST_TOOLS,
      };
      delete vars[missing];
      assert.throws(
        () => renderPrompt("log-analyst.system", vars),
        new RegExp(`undefined variable: ${missing}`),
      );
    });
  }
});

describe("prompts/log-analyst.user.liquid", () => {
  const finding = hostileFinding();
  const memories = [
    {
      id: "mem-17",
      fact: "A query over `compute_googleapis_com_vpc_flows` with WHERE jsonPayload.src_instance.vm_name = @v1 ran without error.",
    },
    // Facts are written from typed fields (factText); the fence stays for whatever reaches it.
    {
      id: "mem-4",
      fact: `In \`dns_googleapis_com_dns_queries\`, \`jsonPayload.queryName\` holds a DNS name. ${INJECTION}`,
    },
  ];
  const vars = () => ({
    ask: { request: `Which IPs did web-1 reach? ${INJECTION}`, focus: "vpc flows" },
    window: { start: "2025-06-10T21:14:27Z", end: "2025-06-11T04:14:27Z" },
    windowSource: "default",
    eventTime: finding.eventTime,
    finding: findingForAnalyst(finding),
    memories,
  });

  it("fences the request, the finding brief and the recalled memories with their ids", () => {
    const v = vars();
    const text = renderPrompt("log-analyst.user", v);
    assertFencedOnce(text, "analysis_request", v.ask, [INJECTION_PHRASE, "maintenance mode"]);
    assertFencedOnce(text, "scc_finding", v.finding, [finding.category, finding.resource.name]);
    const fence = assertFencedOnce(text, "recalled_memories", memories, ["jsonPayload.src_instance.vm_name"]);
    assert.ok(fence.body.includes('"id": "mem-17"') && fence.body.includes('"id": "mem-4"'));
  });

  it("names the session window and where it came from", () => {
    const text = renderPrompt("log-analyst.user", vars());
    assert.ok(
      text.includes(
        `Session window: 2025-06-10T21:14:27Z to 2025-06-11T04:14:27Z (the default around the finding's eventTime ${finding.eventTime}).`,
      ),
    );
    const given = renderPrompt("log-analyst.user", { ...vars(), windowSource: "request" });
    assert.ok(given.includes("(given with the request)"));
  });

  it("says plainly when no memory was recalled, and fences nothing for it", () => {
    const text = renderPrompt("log-analyst.user", { ...vars(), memories: [] });
    assert.ok(text.includes("No memories were recalled for this question."));
    assert.deepEqual(
      splitFences(text).fences.map((f) => f.kind),
      ["analysis_request", "scc_finding"],
    );
  });

  it("leaves the finding's free text out of the brief", () => {
    const brief = findingForAnalyst(finding);
    assert.equal(JSON.stringify(brief).includes("maintenance mode"), false);
    assert.equal(brief.eventTime, finding.eventTime);
  });

  for (const missing of ["ask", "window", "windowSource", "eventTime", "finding", "memories"] as const) {
    it(`throws when ${missing} is missing`, () => {
      const { [missing]: _dropped, ...rest } = vars();
      assert.throws(
        () => renderPrompt("log-analyst.user", rest),
        new RegExp(`undefined variable: ${missing}`),
      );
    });
  }
});
