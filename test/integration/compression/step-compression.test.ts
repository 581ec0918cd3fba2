import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { ApiError } from "@google/genai";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { FirestoreStepHistoryStore } from "../../../functions/src/adapters/firestore/step-history-store.js";
import { historyIocs } from "../../../functions/src/agent/compression/iocs.js";
import { isSummaryMessage } from "../../../functions/src/agent/compression/summary-message.js";
import { runCompressor } from "../../../functions/src/app/compressor.js";
import type { AppDeps } from "../../../functions/src/app/deps.js";
import { runStepExecutor } from "../../../functions/src/app/step-executor.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import { ModelUnavailableError } from "../../../functions/src/domain/errors.js";
import { iocKey } from "../../../functions/src/domain/ioc.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import type { StepReport } from "../../../functions/src/domain/results.js";
import { classifyProviderError } from "../../../functions/src/model/errors.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { EventBus } from "../../../functions/src/ports/event-bus.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { plan, step } from "../../fixtures/plans.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildInvestigation } from "../../helpers/investigation-builders.js";
import { type Script, ScriptedModel, type ScriptStep } from "../../helpers/scripted-model.js";
import { countFlows, lookupIp, PureRegistry } from "../../unit/agent/support.js";

/**
 * The step executor, the compressor operation and the Firestore history store together,
 * with a scripted model standing in for Gemini: the provider's real token-limit error
 * shape goes in, a compressed history comes out of Firestore, and the re-run of the step
 * sends exactly that history to the model.
 */
const STEP = step("pool-check", {
  description: "Check 45.9.148.108 and the flows web-1 sent to it",
  tools: ["lookup_ip", "count_flows"],
});

/** What @google/genai throws when the Developer API refuses an over-long request. */
const tokenLimit = () =>
  classifyProviderError(
    new ApiError({
      status: 400,
      message: JSON.stringify({
        error: {
          code: 400,
          message: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
          status: "INVALID_ARGUMENT",
        },
      }),
    }),
  );

const report: StepReport = {
  outcome: "answered",
  summary: "45.9.148.108 is a supportxmr pool; web-1 sent 412 flows to it.",
  facts: ["lookup_ip: listed as supportxmr", "count_flows: 412 flows"],
  iocs: [{ type: "ip", value: "45.9.148.108" }],
};

const round = (id: string, name: string, args: JsonObject): ScriptStep => ({
  toolCalls: [{ id, name, args }],
});

/** A summary that forgets every indicator: the code must put them back. */
const forgetful: ScriptStep = () =>
  "Goal: check the pool. Findings: a pool was contacted. Status: nearly done.";

class RecordingBus implements EventBus {
  readonly published: JsonObject[] = [];
  async publish(_topic: string, data: JsonObject): Promise<string> {
    this.published.push(data);
    return String(this.published.length);
  }
}

describe("a step that runs out of context: compressed, persisted, re-run", { timeout: 120_000 }, () => {
  let projectId: string;

  before(async () => {
    await ensureEmulators();
    projectId = uniqueProjectId("compression");
  });

  async function setup(script: Script, configure?: (deps: AppDeps) => void) {
    const db = createFirestore({ projectId });
    const store = new FirestoreInvestigationStore(db);
    const histories = new FirestoreStepHistoryStore(db);
    const inv = buildInvestigation();
    await store.create(inv, [{ type: "created", message: "test" }]);
    await store.update(inv.id, (current) => ({
      investigation: { ...current, status: "running", plan: plan([STEP]) },
    }));
    const model = new ScriptedModel(script);
    const registry = new PureRegistry([lookupIp, countFlows]);
    const bus = new RecordingBus();
    const deps: AppDeps = {
      config: loadConfig({ env: {} }),
      store,
      histories,
      bus,
      model,
      toolbox: new ToolBox(registry, () => true),
      tables: [],
      logger: silentLogger,
      now: () => new Date(),
    };
    configure?.(deps);
    // A second client, as the compressor and the re-run are other processes in production.
    const reader = new FirestoreStepHistoryStore(createFirestore({ projectId }));
    return { id: inv.id, store, histories, reader, model, registry, bus, deps };
  }

  it("rejects with the token-limit error, compresses, persists, and the retried request succeeds", async () => {
    const t = await setup({
      executor: [
        round("c1", "lookup_ip", { ip: "45.9.148.108" }),
        round("c2", "count_flows", { destination: "45.9.148.108" }),
        () => tokenLimit(),
        { json: report },
      ],
      compressor: [forgetful],
    });

    const first = await runStepExecutor(t.id, STEP.id, t.deps);
    assert.equal(first.status, "context_pressure");
    assert.match(first.reason ?? "", /input token count \(1200293\) exceeds/);
    assert.equal(
      await t.store.getStepResult(t.id, STEP.id),
      undefined,
      "no result while compression is pending",
    );
    const saved = await t.reader.get(t.id, STEP.id);
    assert.ok(saved?.pressure, "the history waits for the compressor");
    assert.equal(saved.messages.length, 5, "task + two tool rounds");
    assert.equal(saved.iterations, 2);

    const compressed = await runCompressor(t.id, STEP.id, t.deps);
    assert.equal(compressed.compressed, true);
    assert.equal(compressed.compressions, 1);
    const persisted = await t.reader.get(t.id, STEP.id);
    assert.ok(persisted && !persisted.pressure);
    assert.equal(persisted.compressions, 1);
    assert.ok(isSummaryMessage(persisted.messages[0]), "the summary heads the stored history");
    const lost = historyIocs(saved.messages).filter(
      (ioc) => !new Set(historyIocs(persisted.messages).map(iocKey)).has(iocKey(ioc)),
    );
    assert.deepEqual(lost, [], "every indicator survives the forgetful summary");
    const compressorRequest = t.model.requestsFor("compressor")[0] as GenerateRequest;
    assert.match(
      compressorRequest.messages[0]?.role === "user" ? compressorRequest.messages[0].text : "",
      /45\.9\.148\.108/,
    );

    const again = await runCompressor(t.id, STEP.id, t.deps);
    assert.equal(again.compressed, false, "a repeated compressor call changes nothing");

    const second = await runStepExecutor(t.id, STEP.id, t.deps);
    assert.deepEqual(second, { stepId: STEP.id, status: "done", executed: true });
    const executor = t.model.requestsFor("executor");
    assert.equal(executor.length, 4);
    assert.deepEqual(
      executor[3]?.messages,
      persisted.messages,
      "the re-run sent the persisted, compressed history",
    );
    assert.equal(t.registry.runs.length, 2, "no tool ran twice");

    const results = await t.store.listStepResults(t.id);
    assert.equal(results.length, 1);
    assert.equal(results[0]?.toolCalls.length, 2, "the result keeps the tool calls of the first run");
    assert.equal(results[0]?.iterations, 3);
    const events = await t.store.listEvents(t.id);
    const note = events.find((e) => e.type === "compressed");
    assert.ok(note && note.stepId === STEP.id);
    assert.match(note.message, /indicators kept/);
    assert.equal(events.filter((e) => e.type === "step_started").length, 1);
    assert.ok(
      t.bus.published.some((m) => m.type === "compressed"),
      "published to investigation-events",
    );
  });

  it("compresses before the provider refuses once reported usage passes compressAt of the window", async () => {
    const t = await setup(
      {
        executor: [
          {
            toolCalls: [{ id: "c1", name: "lookup_ip", args: { ip: "45.9.148.108" } }],
            usage: { inputTokens: 5_000 },
          },
          { json: report, usage: { inputTokens: 900 } },
        ],
        compressor: [forgetful],
      },
      (deps) => {
        deps.config = {
          ...deps.config,
          model: { ...deps.config.model, contextWindowTokens: 8_000, compressAt: 0.6 },
        };
      },
    );
    const first = await runStepExecutor(t.id, STEP.id, t.deps);
    assert.equal(first.status, "context_pressure");
    assert.match(first.reason ?? "", /5000 input tokens, past the compression threshold/);
    assert.equal((await t.reader.get(t.id, STEP.id))?.pressure?.inputTokens, 5_000);
    assert.equal((await runCompressor(t.id, STEP.id, t.deps)).compressed, true);
    const second = await runStepExecutor(t.id, STEP.id, t.deps);
    assert.equal(second.status, "done");
  });

  it("stops after two compressions: the third refusal fails the step with the reason", async () => {
    const t = await setup({
      executor: [
        round("c1", "lookup_ip", { ip: "45.9.148.108" }),
        round("c2", "count_flows", { destination: "45.9.148.108" }),
        round("c3", "lookup_ip", { ip: "185.10.68.3" }),
        () => tokenLimit(),
        () => tokenLimit(),
        () => tokenLimit(),
      ],
      compressor: [forgetful, forgetful],
    });
    for (let n = 1; n <= 2; n++) {
      assert.equal((await runStepExecutor(t.id, STEP.id, t.deps)).status, "context_pressure");
      assert.equal((await runCompressor(t.id, STEP.id, t.deps)).compressions, n);
    }
    const last = await runStepExecutor(t.id, STEP.id, t.deps);
    assert.equal(last.status, "failed");
    const result = await t.store.getStepResult(t.id, STEP.id);
    assert.match(result?.error ?? "", /still too large after 2 compression\(s\)/);
    assert.equal(t.model.remaining(), 0);
  });

  it("a refusal of the very first request fails the step at once: there is nothing to compress", async () => {
    const t = await setup({ executor: [() => tokenLimit()] });
    const outcome = await runStepExecutor(t.id, STEP.id, t.deps);
    assert.equal(outcome.status, "failed");
    const result = await t.store.getStepResult(t.id, STEP.id);
    assert.match(result?.error ?? "", /nothing to summarize/);
  });

  it("a step re-run after an outage resumes from its saved rounds instead of starting over", async () => {
    const t = await setup({
      executor: [
        round("c1", "lookup_ip", { ip: "45.9.148.108" }),
        new ModelUnavailableError("503 after retries"),
        { json: report },
      ],
    });
    await assert.rejects(runStepExecutor(t.id, STEP.id, t.deps), ModelUnavailableError);
    const outcome = await runStepExecutor(t.id, STEP.id, t.deps);
    assert.equal(outcome.status, "done");
    const executor = t.model.requestsFor("executor");
    assert.deepEqual(executor[2]?.messages, executor[1]?.messages, "the re-run continued from round one");
    assert.equal(t.registry.runs.length, 1);
  });
});
