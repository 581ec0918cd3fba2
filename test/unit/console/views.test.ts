import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { investigationPage } from "../../../functions/src/console/pages/investigation.js";
import { investigationsPage } from "../../../functions/src/console/pages/investigations.js";
import { memoriesPage } from "../../../functions/src/console/pages/memories.js";
import { queuePage } from "../../../functions/src/console/pages/queue.js";
import { reportPage } from "../../../functions/src/console/pages/report.js";
import { renderView } from "../../../functions/src/console/views.js";
import { ROOT_SCOPE } from "../../../functions/src/notify/thread-root.js";
import type { SpanRecord } from "../../../functions/src/platform/trace-file.js";
import { investigationTraceIds } from "../../../functions/src/platform/tracing.js";
import { conclusion, event, finding, investigation, reflection, stepResult } from "../notify/fixtures.js";
import { fakeDeps, memory } from "./support.js";

/**
 * Every console view rendered from its page's real context (the page functions over in-memory
 * doubles), with values that must appear and hostile strings that must come out as text.
 */
const HOSTILE = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(2)>",
  '"><svg onload=alert(3)>',
  "</style><style>body{display:none}</style>",
];
const common = { user: "ana@example.com", csrf: "tok", csrfField: "csrf", flash: "" };

function assertInert(html: string): void {
  for (const h of HOSTILE) assert.ok(!html.includes(h), `raw markup leaked: ${h}`);
  assert.ok(!/<script/i.test(html), "a <script> element");
  assert.ok(!/<img/i.test(html), "an <img> element");
  assert.ok(!/<[a-z][^>]*\son[a-z]+=/i.test(html), "an event handler attribute");
  assert.ok(!/href="javascript:/i.test(html), "a javascript: link");
  assert.ok(!/style="/i.test(html), "an inline style attribute");
}

const concluded = investigation({
  status: "concluded",
  conclusion: conclusion(),
  analystDecisions: [
    {
      actionId: "act-0123456789abcdef01234567",
      kind: "dispute",
      by: { id: "U0ANALYST", name: "ana" },
      ferretVerdict: "true_positive",
      verdict: "benign",
      reason: "Planned change ticket CHG-1",
      at: "2024-05-01T11:00:00.000Z",
    },
  ],
  updatedAt: "2024-05-02T10:00:00.000Z",
});

const hostileFinding = finding({
  name: `organizations/1/sources/2/findings/x<script>alert(1)</script>`,
  category: HOSTILE[0] as string,
  description: HOSTILE.join(" "),
  externalUri: "javascript:alert(5)",
  resource: { name: HOSTILE[1] as string, displayName: HOSTILE[2] as string },
  access: { principalEmail: HOSTILE[3] as string },
});
const hostile = investigation({
  id: "inv-ffffffffffffffffffffffff",
  status: "concluded",
  finding: hostileFinding,
  iocValues: [...HOSTILE],
  conclusion: conclusion({ summary: HOSTILE.join(" | ") }),
  updatedAt: "2024-05-03T10:00:00.000Z",
});

describe("console views", () => {
  it("investigations: rows, filter state and how the rows were found", async () => {
    const deps = fakeDeps({
      investigations: [
        concluded,
        investigation({ id: "inv-0123456789abcdef0123456a", updatedAt: "2024-05-03T09:00:00.000Z" }),
      ],
    });
    const context = await investigationsPage(deps, { verdict: "true_positive", days: "7" });
    const html = await renderView("investigations", { ...context, ...common });
    assert.match(html, /href="\/investigations\/inv-0123456789abcdef01234567"/);
    assert.match(html, /<option value="true_positive" selected>/);
    assert.match(html, /1 shown of 2 read/);
    assert.match(html, /benign/, "the analyst's verdict column");
  });

  it("one investigation: finding, plan graph, steps with tool calls, reflections, decision, timeline, links", async () => {
    const deps = fakeDeps({
      investigations: [concluded],
      results: {
        [concluded.id]: [
          stepResult({
            toolCalls: [
              {
                id: "c1",
                name: "log_query",
                args: { sql: "SELECT principal FROM cloudaudit_googleapis_com_activity LIMIT 10" },
                ok: true,
                summary: "3 rows",
                data: {
                  columns: ["principal"],
                  rows: [{ principal: "alice@example.com" }],
                  totalRows: 1,
                  executedSql: "SELECT principal FROM cloudaudit_googleapis_com_activity LIMIT 10",
                },
                durationMs: 12,
              },
            ],
          }),
        ],
      },
      reflections: { [concluded.id]: [reflection()] },
      events: { [concluded.id]: [event(), event({ seq: 2, type: "planned", message: "plan with 2 steps" })] },
      claims: { [`${ROOT_SCOPE}-posted/${concluded.id}`]: { ts: "1714557600.123456" } },
      slackChannel: "C0FERRET",
    });
    const html = await renderView("investigation", {
      ...(await investigationPage(deps, concluded.id)),
      ...common,
    });
    assert.match(html, /<svg class="graph" id="plan-graph"/);
    assert.match(html, /<path class="edge" d="M[\d.]+,[\d.]+ C/, "an arrow for intel-ip's dependency");
    assert.match(html, /SELECT principal FROM cloudaudit_googleapis_com_activity LIMIT 10/);
    assert.match(html, /<td class="wrap mono">alice@example.com<\/td>/, "the rows as a table");
    assert.match(html, /Need to know whether persistence was established\./);
    assert.match(html, /Planned change ticket CHG-1/);
    assert.match(html, /id="analyst-verdict">benign</);
    assert.match(html, /plan with 2 steps/);
    assert.match(html, /href="https:\/\/slack.com\/archives\/C0FERRET\/p1714557600123456"/);
    assert.match(
      html,
      /href="https:\/\/console.cloud.google.com\/security\/command-center\/findings\?organizationId=123456789&amp;resourceId=/,
    );
    assert.match(html, /name="csrf" value="tok"/);
    assert.match(html, /id="llm-calls">3</);
    // The per-step, reflection and remainder rows add up to the total (issue 29).
    const calls = [...html.matchAll(/<td class="calls">(\d+)<\/td>/g)].map((m) => Number(m[1]));
    assert.equal(
      calls.reduce((a, b) => a + b, 0),
      3,
    );
  });

  it("empty states say what is missing and how it appears (issue 29)", async () => {
    const none = fakeDeps({ investigations: [] });
    const list = await renderView("investigations", { ...(await investigationsPage(none, {})), ...common });
    assert.match(
      list,
      /No investigation changed in the last 7 days\. One appears here when a finding reaches ferret/,
    );
    const searched = await renderView("investigations", {
      ...(await investigationsPage(fakeDeps({ investigations: [concluded] }), { q: "nothing-like-this" })),
      ...common,
    });
    assert.match(
      searched,
      /No investigation changed in the last 7 days has “nothing-like-this” in its IOCs, resource, principal, category and summary \(any part, any case\)/,
    );
    const memories = await renderView("memories", { ...(await memoriesPage(none, {})), ...common });
    assert.match(memories, /No memories yet\. ferret learns them from the log-analysis sub-agent/);
    const running = investigation({ id: "inv-0123456789abcdef0123456b", status: "running", plan: undefined });
    const page = await renderView("investigation", {
      ...(await investigationPage(fakeDeps({ investigations: [running] }), running.id)),
      ...common,
    });
    assert.match(page, /No conclusion yet: the investigation is running/);
    assert.match(page, /No plan yet: the planner writes one when the workflow starts/);
  });

  it("the list links by the finding's category and names a principal or says none was named", async () => {
    const vm = investigation({
      id: "inv-0123456789abcdef0123456c",
      updatedAt: "2024-05-03T10:00:00.000Z",
      finding: finding({ iamBindings: [], category: "Execution: Cryptocurrency Mining Hash Match" }),
    });
    const html = await renderView("investigations", {
      ...(await investigationsPage(fakeDeps({ investigations: [concluded, vm] }), {})),
      ...common,
    });
    assert.match(
      html,
      /<a href="\/investigations\/inv-0123456789abcdef0123456c">Execution: Cryptocurrency Mining Hash Match<\/a>/,
    );
    assert.match(html, /user:attacker@evil\.example\.com/, "the IAM binding's member as the principal");
    assert.match(html, /none named<\/span>/, "the VM finding names none, and says so");
  });

  it("one investigation whose thread was posted where no channel id is configured says so", async () => {
    const claims = { [`${ROOT_SCOPE}-posted/${concluded.id}`]: { ts: "1714557601.000100" } };
    const posted = await renderView("investigation", {
      ...(await investigationPage(fakeDeps({ investigations: [concluded], claims }), concluded.id)),
      ...common,
    });
    assert.doesNotMatch(posted, /id="slack-link"/);
    assert.match(posted, /id="slack-ts">Slack thread posted \(root message ts 1714557601\.000100;/);
    const none = await renderView("investigation", {
      ...(await investigationPage(fakeDeps({ investigations: [concluded] }), concluded.id)),
      ...common,
    });
    assert.match(none, /no Slack thread/);
    assert.doesNotMatch(none, /id="slack-ts"/);
  });

  it("one investigation with a hostile finding renders every field as text", async () => {
    const deps = fakeDeps({ investigations: [hostile] });
    const html = await renderView("investigation", {
      ...(await investigationPage(deps, hostile.id)),
      ...common,
    });
    assertInert(html);
    assert.ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt;"), "the category, escaped");
    assert.ok(html.includes("javascript:alert(5)"), "the external URI is shown as text");
    assert.ok(!html.includes('id="scc-link"'), "no SCC link from a name that is not a finding name");
  });

  it("invisible and direction-control characters: shown as markers or removed, as in Slack and the CLI (issue 27)", async () => {
    // A reversed file name (U+202E), a zero-width space inside a domain, and a hidden copy of a
    // text in the Unicode tag block; before, the console showed all three raw.
    const tags = [..."ignore"].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("");
    const sneaky = finding({
      category: "Malware: invoice\u202Efdp.exe",
      description: `beacon to evil\u200B.example${tags} seen`,
      resource: { name: "//compute.googleapis.com/projects/p/zones/z/instances/vm\u2066-1\u2069" },
    });
    const inv = investigation({
      id: "inv-eeeeeeeeeeeeeeeeeeeeeeee",
      finding: sneaky,
      status: "concluded",
      conclusion: conclusion(),
    });
    const deps = fakeDeps({ investigations: [inv] });
    for (const html of [
      await renderView("investigation", { ...(await investigationPage(deps, inv.id)), ...common }),
      await renderView("investigations", { ...(await investigationsPage(deps, {})), ...common }),
    ]) {
      assert.doesNotMatch(html, /[\u202A-\u202E\u2066-\u2069\u200B-\u200D\u{E0000}-\u{E007F}]/u);
      assert.ok(html.includes("invoice⟦U+202E⟧fdp.exe"), "the override is shown where it was");
    }
    const page = await renderView("investigation", { ...(await investigationPage(deps, inv.id)), ...common });
    assert.ok(page.includes("evil.example seen"), "zero-width and tag characters removed");
    assert.ok(page.includes("vm⟦U+2066⟧-1⟦U+2069⟧"), "isolates shown");
  });

  it("the list with a hostile finding renders it as text", async () => {
    const deps = fakeDeps({ investigations: [hostile] });
    const html = await renderView("investigations", { ...(await investigationsPage(deps, {})), ...common });
    assertInert(html);
    assert.ok(html.includes("&lt;img src=x onerror=alert(2)&gt;") || html.includes("&#34;&gt;&lt;svg"));
  });

  it("memories: the fact's text, score, history and a delete form with the token", async () => {
    const deps = fakeDeps({
      investigations: [],
      memories: [
        memory(),
        memory({
          id: "mem_aaaaaaaaaaaaaaaaaaaaaaaa",
          fact: { kind: "column_format", table: "syslog", column: "textPayload", format: "raw_text_line" },
          score: -2,
        }),
      ],
    });
    const html = await renderView("memories", { ...(await memoriesPage(deps, {})), ...common });
    assertInert(html);
    assert.match(html, /protopayload_auditlog\.methodName/);
    assert.match(html, /used 3×, last 2024-05-02T09:00:00.000Z/);
    assert.match(html, /action="\/memories\/mem_0123456789abcdef01234567\/delete"/);
    const searched = await renderView("memories", {
      ...(await memoriesPage(deps, { q: "METHODNAME" })),
      ...common,
    });
    assert.match(searched, /1 shown of the 2/);
  });

  it("queue: depth, limits and the next entries", async () => {
    const deps = fakeDeps({
      investigations: [],
      queue: [
        {
          investigationId: "inv-0123456789abcdef01234567",
          sortKey: "k",
          severity: "HIGH",
          category: "Execution: Cryptocurrency Mining Combined Detection",
          eventTime: "2024-05-03T11:00:00.000Z",
          queuedAt: "2024-05-03T11:00:01.000Z",
          announced: true,
          reason: "at most 10 at once",
        },
      ],
    });
    const html = await renderView("queue", { ...(await queuePage(deps)), ...common });
    assert.match(html, /id="depth">1</);
    assert.match(html, /Execution: Cryptocurrency Mining Combined Detection/);
    assert.match(html, /0 of 10/);
  });

  it("report: agreement and the disputed verdicts", async () => {
    const deps = fakeDeps({ investigations: [concluded] });
    const html = await renderView("report", { ...(await reportPage(deps, { days: "30" })), ...common });
    assert.match(html, /id="agreement">0%</);
    assert.match(html, /Planned change ticket CHG-1/);
  });

  it("investigation: the trace as a waterfall, each bar placed by its rect's attributes", async () => {
    const { traceId, rootSpanId } = investigationTraceIds(concluded.id);
    const span = (
      spanId: string,
      name: string,
      startMs: number,
      endMs: number,
      extra: Partial<SpanRecord> = {},
    ) => ({
      traceId,
      spanId: spanId.repeat(16),
      parentSpanId: rootSpanId,
      name,
      startMs,
      endMs,
      ok: true,
      attributes: {},
      ...extra,
    });
    const spans: SpanRecord[] = [
      span("a", "planning.generate_action_plan", 1_000, 3_000),
      span("b", "execution.execute_action", 4_000, 9_000, {
        attributes: { "ferret.step_id": "audit-grant" },
      }),
      span("c", "chat gemini-2.5-flash", 4_500, 5_000, {
        parentSpanId: "b".repeat(16),
        attributes: { "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 812 },
      }),
      span("d", "other trace's", 0, 99_000, { traceId: "f".repeat(32) }),
    ];
    const html = await renderView("investigation", {
      ...(await investigationPage(fakeDeps({ investigations: [concluded], spans }), concluded.id)),
      ...common,
    });
    assert.match(
      html,
      /id="trace-summary">Trace <code>[0-9a-f]{32}<\/code>: 3 spans over 8 s of wall time, 1 s of it with no phase running/,
    );
    assert.match(
      html,
      /<tr class="k-phase"><td class="wf-name d-0">planning\.generate_action_plan<\/td><td class="wf-bar"><svg [^>]*><rect x="0%" y="2" width="25%"/,
    );
    assert.match(html, /<tr class="k-wait">.*<rect x="25%" y="2" width="12\.5%"/);
    assert.match(
      html,
      /<tr class="k-step"><td class="wf-name d-0">execution\.execute_action <a href="#step-audit-grant">audit-grant<\/a><\/td>.*<rect x="37\.5%" y="2" width="62\.5%"/,
    );
    assert.match(
      html,
      /<tr class="k-model"><td class="wf-name d-1">chat gemini-2\.5-flash.*<rect x="43\.75%" y="2" width="6\.25%"[\s\S]*gen_ai\.usage\.input_tokens=812/,
    );
    assert.doesNotMatch(html, /other trace/, "only this investigation's trace");
    assert.doesNotMatch(html, /id="trace-empty"/);
  });

  it("investigation: no spans is said plainly, and a hostile span name stays text", async () => {
    const none = await renderView("investigation", {
      ...(await investigationPage(fakeDeps({ investigations: [concluded] }), concluded.id)),
      ...common,
    });
    assert.match(
      none,
      /id="trace-empty">No spans recorded for this investigation \(trace <code>[0-9a-f]{32}<\/code>\) in the test&#39;s spans\./,
    );
    const { traceId, rootSpanId } = investigationTraceIds(hostile.id);
    const spans: SpanRecord[] = HOSTILE.map((name, i) => ({
      traceId,
      spanId: String(i).repeat(16),
      parentSpanId: rootSpanId,
      name,
      startMs: i,
      endMs: i + 1,
      ok: i % 2 === 0,
      attributes: { "ferret.step_id": name, [name]: name },
    }));
    const html = await renderView("investigation", {
      ...(await investigationPage(fakeDeps({ investigations: [hostile], spans }), hostile.id)),
      ...common,
    });
    assertInert(html);
    assert.equal((html.match(/<tr class="k-step/g) ?? []).length, HOSTILE.length, "every hostile span drawn");
    assert.ok(
      html.includes('<span class="muted">&lt;script&gt;alert(1)&lt;/script&gt;</span>'),
      "a step id the plan does not have is text, not a link",
    );
  });

  it('report: the planning metrics with the design\'s targets, "—" where nothing was measured', async () => {
    const failedStep = investigation({
      id: "inv-0123456789abcdef0123456f",
      status: "failed",
      conclusion: undefined,
      updatedAt: "2024-05-03T11:00:00.000Z",
    });
    const plan = failedStep.plan;
    assert.ok(plan);
    const withFailure = {
      ...failedStep,
      plan: {
        ...plan,
        revision: 2,
        steps: plan.steps.map((st, i) => ({
          ...st,
          status: i === 0 ? ("failed" as const) : ("done" as const),
        })),
      },
    };
    const rows = async (investigations: Parameters<typeof fakeDeps>[0]["investigations"]) => {
      const html = await renderView("report", {
        ...(await reportPage(fakeDeps({ investigations }), { days: "30" })),
        ...common,
      });
      const table = html.slice(html.indexOf('id="planning"'));
      return [
        ...table.matchAll(
          /<tr><td>([^<]+)<\/td><td class="value">([^<]+)<\/td><td>(\d+)<\/td><td class="target nowrap">([^<]+)<\/td><td class="met ?[a-z]*">([a-z]*)<\/td>/g,
        ),
      ].map((m) => m.slice(1, 6).join(" | "));
    };
    assert.deepEqual(await rows([]), [
      "Completion rate | — | 0 | &gt; 90% | ",
      "First plan completes without revision | — | 0 | &gt;= 80% | ",
      "Revision rate | — | 0 | &lt; 30% | ",
      "Mean revisions | — | 0 | &lt; 1.5 | ",
      "First-try success | — | 0 | &gt; 70% | ",
      "Recovery from errors | — | 0 | &gt; 80% | ",
    ]);
    // concluded: revision 0, steps done and pending; withFailure: revision 2, steps failed and done, no verdict.
    assert.deepEqual(await rows([concluded, withFailure]), [
      "Completion rate | 50% | 2 | &gt; 90% | misses",
      "First plan completes without revision | 50% | 2 | &gt;= 80% | misses",
      "Revision rate | 50% | 2 | &lt; 30% | misses",
      "Mean revisions | 1.00 | 2 | &lt; 1.5 | meets",
      "First-try success | 67% | 3 | &gt; 70% | misses",
      "Recovery from errors | 0% | 1 | &gt; 80% | misses",
    ]);
  });

  it("error: the message as text", async () => {
    const html = await renderView("error", {
      ...common,
      title: "Request refused",
      message: HOSTILE[0],
      status: 400,
      nav: "",
    });
    assertInert(html);
  });
});
