import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { CloudEvent } from "@google-cloud/functions-framework";
import type { BrowserContext, Page } from "playwright-core";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { FirestoreMemoryStore } from "../../../functions/src/adapters/firestore/memory-store.js";
import { createPubSub } from "../../../functions/src/adapters/pubsub/client.js";
import { pullMessages } from "../../../functions/src/adapters/pubsub/pull.js";
import { newInvestigation } from "../../../functions/src/app/ingest.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import { CONTENT_SECURITY_POLICY, consoleApp } from "../../../functions/src/console/app.js";
import { buildConsoleRuntime, type ConsoleRuntime } from "../../../functions/src/console/compose.js";
import { authenticatorFor } from "../../../functions/src/console/identity.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import { type Investigation, investigationIdFor } from "../../../functions/src/domain/investigation.js";
import { buildRuntime } from "../../../functions/src/entry/compose.js";
import { eventHandler } from "../../../functions/src/entry/role-handler.js";
import type { Runtime } from "../../../functions/src/entry/runtime.js";
import { runEval } from "../../../functions/src/eval/run-eval.js";
import { ensureTopology } from "../../../functions/src/local/pubsub-setup.js";
import { factEmbeddingText, type MemoryFact } from "../../../functions/src/memory/fact.js";
import { EMBEDDING_DIMENSIONS } from "../../../functions/src/model/port.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import {
  readSpanFile,
  type SpanRecord,
  startFileTracing,
} from "../../../functions/src/platform/trace-file.js";
import { investigationTraceIds } from "../../../functions/src/platform/tracing.js";
import { roleNamed } from "../../../functions/src/roles/index.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { HOSTILE } from "./hostile.js";
import { launchChromium, screenshotDir, seedHostile } from "./support.js";

/**
 * The web console in a real browser (Debian's headless Chromium driven by playwright-core)
 * against the Firestore and Pub/Sub emulators: a real offline investigation of the
 * cryptomining scenario and a hostile finding are listed, filtered and opened; a memory is
 * deleted and a verdict disputed through the pages' forms, and Firestore shows both. The
 * dispute travels as the Slack buttons' does: the console publishes it to analyst-actions and
 * the analystActions worker records it. The investigation's spans go to a trace file as the
 * local stack's do, and its page draws them; the report page shows the planning metrics.
 * Screenshots go to .ferret/console-screenshots/.
 */
const projectId = uniqueProjectId("console");
const USER = "ana@example.com";
const ACTIONS_PULL = "console-test-actions";
// This process records its spans where the local stack's functions would (one provider per
// process; node:test runs each file in its own), and the console reads them from there.
const TRACE_FILE = join(mkdtempSync(join(tmpdir(), "ferret-console-trace-")), "traces.jsonl");
startFileTracing(TRACE_FILE);

describe("the web console in Chromium", { timeout: 300_000 }, () => {
  let store: FirestoreInvestigationStore;
  let memories: FirestoreMemoryStore;
  let runtime: ConsoleRuntime;
  let worker: Runtime;
  let server: Server;
  let base: string;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;
  let crypto: Investigation;
  let hostile: Investigation;
  const memoryIds: string[] = [];
  const dialogs: string[] = [];
  const foreignRequests: string[] = [];
  const shots = screenshotDir();

  before(async () => {
    const emulators = await ensureEmulators();
    const env = {
      GOOGLE_CLOUD_PROJECT: projectId,
      FIRESTORE_EMULATOR_HOST: emulators.firestoreHost,
      PUBSUB_EMULATOR_HOST: emulators.pubsubHost,
      METADATA_SERVER_DETECTION: "none",
      FERRET_MODEL_PROVIDER: "offline",
      FERRET_LOG_LEVEL: "ERROR",
      FERRET_CONSOLE_AUTH: "local",
      FERRET_CONSOLE_LOCAL_USER: USER,
      FERRET_TRACE_FILE: TRACE_FILE,
    };
    await ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
    const pubsub = createPubSub({ projectId });
    await pubsub.topic("analyst-actions").createSubscription(ACTIONS_PULL);
    await pubsub.close();

    const db = createFirestore({ projectId });
    store = new FirestoreInvestigationStore(db);
    memories = new FirestoreMemoryStore(db);
    // A real investigation: the deployed workflow on the local runner, offline model, DuckDB
    // over the scenario's logs, its STIX bundle.
    const scenario = fromRoot("examples/scenarios/cryptomining");
    const [outcome] = await runEval({
      scenariosDir: scenario,
      model: "offline",
      projectId,
      logger: silentLogger,
    });
    assert.equal(outcome?.error, undefined, "the cryptomining investigation ran");
    const finding = normalizeNotification(
      parseNotification(JSON.parse(readFileSync(join(scenario, "notification.json"), "utf8"))),
    );
    crypto = (await store.get(investigationIdFor(finding.name, finding.eventTime))) as Investigation;
    assert.equal(crypto?.status, "concluded");
    hostile = await seedHostile(store, HOSTILE);
    // Spans whose names and attributes carry the hostile strings, as a compromised process could write them.
    const hostileIds = investigationTraceIds(hostile.id);
    const now = Date.now();
    appendFileSync(
      TRACE_FILE,
      HOSTILE.map(
        (text, i): SpanRecord => ({
          traceId: hostileIds.traceId,
          spanId: `${i}`.repeat(16),
          parentSpanId: hostileIds.rootSpanId,
          name: text,
          startMs: now + i * 100,
          endMs: now + i * 100 + 50,
          ok: i % 2 === 0,
          attributes: { "ferret.step_id": text, [text]: text },
        }),
      )
        .map((span) => `${JSON.stringify(span)}\n`)
        .join(""),
    );

    // Two memories, as the introspector stores them: typed facts (no text can be hostile).
    const facts: MemoryFact[] = [
      {
        kind: "column_format",
        table: "compute_googleapis_com_vpc_flows",
        column: "jsonPayload.connection.dest_ip",
        format: "ip_address",
      },
      {
        kind: "query_shape",
        table: "compute_googleapis_com_vpc_flows",
        filters: [{ column: "jsonPayload.connection.dest_port", test: "equals" }],
      },
    ];
    const vectors = await createOfflineModel().embed({
      texts: facts.map(factEmbeddingText),
      task: "RETRIEVAL_DOCUMENT",
      dimensions: EMBEDDING_DIMENSIONS,
    });
    const applied = await memories.applyIntrospection({
      sessionId: "console-test-session",
      investigationId: crypto.id,
      scope: "log_analyst",
      created: facts.map((fact, i) => ({
        id: `mem_${String(i).repeat(24)}`,
        fact,
        embedding: vectors[i] ?? [],
      })),
      embeddingSpace: "offline-test",
      helpful: [],
      harmful: [],
      model: "offline",
      at: new Date(),
    });
    memoryIds.push(...applied.created);

    runtime = buildConsoleRuntime(env);
    const app = consoleApp({
      deps: runtime.deps,
      authenticate: authenticatorFor(runtime.config),
      behindProxy: false,
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    worker = await buildRuntime(env, { tools: false, chat: true });

    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    page.on("request", (request) => {
      if (!request.url().startsWith(base)) foreignRequests.push(request.url());
    });
  });

  after(async () => {
    await browser?.close();
    server?.close();
    await runtime?.close();
    await (worker?.bus as Partial<{ close(): Promise<void> }> | undefined)?.close?.();
  });

  test("list → filter → detail", async () => {
    const listed = await page.goto(`${base}/investigations`);
    assert.equal(listed?.headers()["content-security-policy"], CONTENT_SECURITY_POLICY);
    const rows = page.locator("#investigations tbody tr");
    assert.equal(await rows.count(), 2);
    await page.screenshot({ path: join(shots, "investigations.png"), fullPage: true });

    await page.selectOption("select[name=verdict]", "true_positive");
    await page.click("#filters button[type=submit]");
    await page.waitForURL(/verdict=true_positive/);
    assert.equal(await rows.count(), 1);
    // The link reads as the finding (its category); the id stays below it.
    assert.equal(await rows.first().locator("td a").getAttribute("href"), `/investigations/${crypto.id}`);
    assert.equal(await rows.first().locator("td a").textContent(), crypto.finding.category);
    assert.equal(await rows.first().locator("td.finding .id").textContent(), crypto.id);

    await page.click(`a[href="/investigations/${crypto.id}"]`);
    await page.waitForURL(`${base}/investigations/${crypto.id}`);
    assert.equal(await page.textContent("#verdict"), "true_positive");
    const nodes = page.locator("#plan-graph g.node");
    assert.equal(await nodes.count(), crypto.plan?.steps.length);
    assert.ok((await page.locator("details.call .query").count()) > 0, "the queries the log analyst ran");
    assert.ok((await page.locator("details.call .query pre.sql").count()) > 0, "with the SQL that ran");
    assert.match((await page.textContent("#plan")) ?? "", /203\.0\.113\.88/, "and the rows it returned");
    assert.match((await page.textContent("#timeline")) ?? "", /concluded/);
    await page.screenshot({ path: join(shots, "investigation.png"), fullPage: true });
    await page.screenshot({ path: join(shots, "investigation-top.png") });
    await page.locator("#plan-graph").screenshot({ path: join(shots, "plan-graph.png") });
    await page.locator("#usage").screenshot({ path: join(shots, "usage.png") });
    await page.locator("#trace").screenshot({ path: join(shots, "trace.png") });
    // Every box's text stays inside its box, as the browser lays it out (issue 29: "cancelle…").
    const overflow =
      await page.evaluate(`[...document.querySelectorAll("#plan-graph g.node")].flatMap((g) => {
      const box = g.querySelector("rect").getBBox();
      return [...g.querySelectorAll("text")]
        .map((t) => ({ text: t.textContent, b: t.getBBox() }))
        .filter(({ b }) => b.x + b.width > box.x + box.width || b.y + b.height > box.y + box.height)
        .map(({ text }) => text);
    })`);
    assert.deepEqual(overflow, [], "no node text runs past its box");
    // The steps' model calls, the reflections' and the rest add up to the total.
    const calls = (await page.locator("#usage-breakdown td.calls").allTextContents()).map(Number);
    assert.equal(
      calls.reduce((a, b) => a + b, 0),
      Number(await page.textContent("#llm-calls")),
    );
    assert.equal(
      crypto.counters.usage.inputTokens + crypto.counters.usage.outputTokens,
      0,
      "offline: no tokens",
    );
  });

  test("the investigation's trace as a waterfall: every span a row, each bar where its time was", async () => {
    await page.goto(`${base}/investigations/${crypto.id}`);
    const { traceId } = investigationTraceIds(crypto.id);
    const spans = readSpanFile(TRACE_FILE).filter((s) => s.traceId === traceId);
    assert.ok(spans.length > 0, "the investigation recorded spans");
    const rows = page.locator("#waterfall tbody tr");
    const kinds = await rows.evaluateAll((trs) => trs.map((tr) => tr.className));
    assert.equal(
      kinds.filter((k) => !k.startsWith("k-wait")).length,
      spans.length,
      "one row per span of the trace",
    );
    const names = (await page.locator("#waterfall td.wf-name").allTextContents()).join("\n");
    for (const phase of ["planning.generate_action_plan", "execution.execute_action", "conclusion.conclude"])
      assert.match(names, new RegExp(phase.replace(".", "\\.")), `the ${phase} phase`);
    for (const kind of ["k-step", "k-model", "k-tool"])
      assert.ok(
        kinds.some((k) => k.split(" ").includes(kind)),
        `a ${kind} row (${[...new Set(kinds)].join(", ")})`,
      );
    assert.ok(await page.locator("#trace a[href^='#step-']").count(), "a step's bar links to its card");
    // As the browser lays it out: each row holds one bar, inside its track, and a bar's share
    // of the track is its span's share of the trace's wall time.
    const bars = (await rows.evaluateAll((trs) =>
      trs.map((tr) => {
        const svg = tr.querySelector("svg");
        const rects = tr.querySelectorAll("rect");
        const track = svg?.getBoundingClientRect();
        const bar = rects[0]?.getBoundingClientRect();
        return {
          name: tr.querySelector("td")?.textContent ?? "",
          rects: rects.length,
          left: (bar?.left ?? 0) - (track?.left ?? 0),
          width: bar?.width ?? 0,
          track: track?.width ?? 0,
        };
      }),
    )) as { name: string; rects: number; left: number; width: number; track: number }[];
    for (const b of bars) {
      assert.equal(b.rects, 1, `one bar in ${b.name}`);
      assert.ok(b.left >= -0.5 && b.left + b.width <= b.track + 0.5, `${b.name} stays in its track`);
    }
    const start = Math.min(...spans.map((s) => s.startMs));
    const wall = Math.max(...spans.map((s) => s.endMs)) - start;
    for (const name of ["planning.generate_action_plan", "conclusion.conclude"]) {
      const [span] = spans.filter((s) => s.name === name);
      const [bar] = bars.filter((b) => b.name.trim() === name);
      assert.ok(span && bar, name);
      assert.ok(
        Math.abs(bar.width - ((span.endMs - span.startMs) / wall) * bar.track) < 1.5,
        `${name}: ${bar.width}px for ${span.endMs - span.startMs} ms of ${wall} ms`,
      );
      assert.ok(
        Math.abs(bar.left - ((span.startMs - start) / wall) * bar.track) < 1.5,
        `${name} starts where its span started`,
      );
    }
    await page.locator("#trace").screenshot({ path: join(shots, "trace.png") });
  });

  test("search: any part of an IOC, the resource, the principal, the category or the summary, any case", async () => {
    // What an analyst remembers of the demo's investigation (issue 29: these found nothing).
    const searches = [
      "203.0.113.88", // an IOC the investigation found (in the conclusion, not the finding)
      "etl-worker-1", // the VM's display name
      "xmr.pool-relay.top", // the mining pool domain
      "ETL-Worker", // any case, any part
      "203.0.113[.]88", // pasted defanged, as ferret shows it
      "cryptocurrency mining", // the category
    ];
    const found: Record<string, string[]> = {};
    for (const value of searches) {
      await page.goto(`${base}/investigations`);
      await page.fill("input[name=q]", value);
      await page.click("#filters button[type=submit]");
      await page.waitForURL(/[?&]q=/);
      const links = page.locator("#investigations tbody tr td.finding a");
      const hrefs: string[] = [];
      for (let i = 0; i < (await links.count()); i++)
        hrefs.push((await links.nth(i).getAttribute("href")) ?? "");
      found[value] = hrefs;
      if (value === "ETL-Worker") await page.screenshot({ path: join(shots, "search.png") });
    }
    const expected = Object.fromEntries(searches.map((v) => [v, [`/investigations/${crypto.id}`]]));
    assert.deepEqual(found, expected, "each finds the demo investigation, and only it");

    await page.selectOption("select[name=field]", "principal");
    await page.fill("input[name=q]", "etl-worker-1");
    await page.click("#filters button[type=submit]");
    await page.waitForURL(/field=principal/);
    assert.equal(await page.locator("#investigations tbody td.finding").count(), 0, "only the chosen field");
    assert.match(
      (await page.textContent("#empty")) ?? "",
      /has “etl-worker-1” in its principal .* \(any part, any case\)/,
      "the empty state says what was searched",
    );
  });

  test("delete a memory", async () => {
    await page.goto(`${base}/memories`);
    assert.equal(await page.locator("#memories tbody tr").count(), 2);
    await page.screenshot({ path: join(shots, "memories.png"), fullPage: true });
    const doomed = memoryIds[0] as string;
    await page.click(`#memory-${doomed} button[type=submit]`);
    await page.waitForURL(/done=deleted/);
    assert.match((await page.textContent(".flash")) ?? "", /Memory deleted/);
    assert.equal(await page.locator(`#memory-${doomed}`).count(), 0);
    assert.equal(await memories.get(doomed), undefined, "gone from Firestore");
    assert.ok(await memories.get(memoryIds[1] as string), "the other memory stays");
  });

  test("dispute a verdict: the worker records it next to ferret's", async () => {
    await page.goto(`${base}/investigations/${crypto.id}`);
    await page.selectOption("#dispute-form select[name=verdict]", "benign");
    await page.fill("#dispute-form input[name=reason]", "Approved load test on this VM (change CHG-42)");
    await page.click("#dispute-form button[type=submit]");
    await page.waitForURL(/done=disputed/);

    const [message] = await pullMessages(createPubSub({ projectId }), ACTIONS_PULL, {
      maxMessages: 1,
      timeoutMs: 20_000,
    });
    assert.ok(message, "the console published to analyst-actions");
    const event = {
      data: {
        message: {
          data: Buffer.from(message.data).toString("base64"),
          messageId: message.messageId,
          attributes: message.attributes,
        },
      },
    } as unknown as CloudEvent<unknown>;
    await eventHandler(roleNamed("analystActions"), async () => worker)(event);

    const stored = await store.get(crypto.id);
    const decision = stored?.analystDecisions?.at(-1);
    assert.equal(decision?.kind, "dispute");
    assert.equal(decision?.verdict, "benign");
    assert.equal(decision?.ferretVerdict, "true_positive");
    assert.equal(decision?.reason, "Approved load test on this VM (change CHG-42)");
    assert.deepEqual(decision?.by, { id: `console:${USER}`, name: USER });
    assert.equal(stored?.conclusion?.verdict, "true_positive", "ferret's verdict is kept");

    await page.reload();
    assert.equal(await page.textContent("#analyst-verdict"), "benign");
    assert.match((await page.textContent("#decisions")) ?? "", /ana@example\.com/);
    await page.screenshot({ path: join(shots, "investigation-disputed.png"), fullPage: true });
  });

  test("a hostile finding renders inert", async () => {
    const response = await page.goto(`${base}/investigations/${hostile.id}`);
    assert.equal(response?.headers()["content-security-policy"], CONTENT_SECURITY_POLICY);
    assert.match((await page.textContent("#title")) ?? "", /<script>window\.__pwned = 1/, "shown as text");
    assert.equal(
      await page.locator("#waterfall tbody tr.k-step").count(),
      HOSTILE.length,
      "the hostile spans drawn",
    );
    assert.match((await page.textContent("#waterfall")) ?? "", /<img src=x onerror=/, "their names as text");
    // Runs in the page (a string: this project compiles without the DOM library).
    const injected = await page.evaluate(`({
      scripts: document.querySelectorAll("script").length,
      images: document.querySelectorAll("img").length,
      styles: document.querySelectorAll("style, [style]").length,
      handlers: [...document.querySelectorAll("*")].filter((el) =>
        [...el.attributes].some((a) => a.name.toLowerCase().startsWith("on")),
      ).length,
      javascriptLinks: [...document.querySelectorAll("a")].filter((a) => (a.getAttribute("href") || "").trim().toLowerCase().startsWith("javascript:")).length,
      injectedIds: document.querySelectorAll("#injected, #injected-style").length,
      pwned: window.__pwned ?? 0,
      bodyDisplay: getComputedStyle(document.body).display,
    })`);
    assert.deepEqual(injected, {
      scripts: 0,
      images: 0,
      styles: 0,
      handlers: 0,
      javascriptLinks: 0,
      injectedIds: 0,
      pwned: 0,
      bodyDisplay: "block",
    });
    await page.hover("#title");
    await page.screenshot({ path: join(shots, "hostile-finding.png"), fullPage: true });
    await page.goto(`${base}/investigations`);
    await page.goto(`${base}/memories`);
    assert.deepEqual(dialogs, [], "no dialog fired");
  });

  test("queue and agreement report", async () => {
    await page.goto(`${base}/queue`);
    assert.equal(await page.textContent("#depth"), "0");
    await page.screenshot({ path: join(shots, "queue.png"), fullPage: true });
    await page.goto(`${base}/report`);
    assert.match((await page.textContent("#disputed")) ?? "", /Approved load test/);
    // The design's metrics over the two finished investigations, counted here from the records.
    const finished = [await store.get(crypto.id), await store.get(hostile.id)] as Investigation[];
    const planned = finished.map((inv) => inv.plan?.revision ?? 0);
    const ended = finished
      .flatMap((inv) => inv.plan?.steps ?? [])
      .filter((st) => ["done", "failed"].includes(st.status));
    const failedSteps = ended.filter((st) => st.status === "failed").length;
    const meanRevisions = planned.reduce((a, b) => a + b, 0) / planned.length;
    const cells = await page.locator("#planning tr").evaluateAll((trs) =>
      trs.slice(1).map((tr) =>
        Array.from(tr.querySelectorAll("td"))
          .slice(0, 5)
          .map((td) => td.textContent),
      ),
    );
    assert.deepEqual(cells, [
      ["Completion rate", "100%", "2", "> 90%", "meets"],
      [
        "First plan completes without revision",
        `${(planned.filter((r) => r === 0).length / 2) * 100}%`,
        "2",
        ">= 80%",
        planned.every((r) => r === 0) ? "meets" : "misses",
      ],
      [
        "Revision rate",
        `${(planned.filter((r) => r > 0).length / 2) * 100}%`,
        "2",
        "< 30%",
        planned.every((r) => r === 0) ? "meets" : "misses",
      ],
      ["Mean revisions", meanRevisions.toFixed(2), "2", "< 1.5", meanRevisions < 1.5 ? "meets" : "misses"],
      [
        "First-try success",
        `${Math.round(((ended.length - failedSteps) / ended.length) * 100)}%`,
        String(ended.length),
        "> 70%",
        (ended.length - failedSteps) / ended.length > 0.7 ? "meets" : "misses",
      ],
      failedSteps === 0
        ? ["Recovery from errors", "—", "0", "> 80%", ""]
        : [
            "Recovery from errors",
            "100%",
            String(finished.filter((inv) => inv.plan?.steps.some((st) => st.status === "failed")).length),
            "> 80%",
            "meets",
          ],
    ]);
    await page.screenshot({ path: join(shots, "report.png"), fullPage: true });
    assert.deepEqual(foreignRequests, [], "the pages load nothing from elsewhere");
  });

  test("an investigation with no spans says so", async () => {
    // Another occurrence of the finding (a later event time): another investigation, no spans.
    const later = new Date(Date.parse(hostile.finding.eventTime) + 60_000).toISOString();
    const quiet = newInvestigation(
      { ...hostile.finding, eventTime: later },
      { config: loadConfig({ env: {} }), now: new Date(), modelName: "offline" },
    );
    await store.create(quiet, [{ type: "created", message: "created" }]);
    await page.goto(`${base}/investigations/${quiet.id}`);
    assert.equal(await page.locator("#waterfall").count(), 0);
    assert.match(
      (await page.textContent("#trace-empty")) ?? "",
      new RegExp(
        `No spans recorded for this investigation \\(trace ${investigationTraceIds(quiet.id).traceId}\\) in the trace file`,
      ),
    );
  });
});
