import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { FirestoreStepHistoryStore } from "../../../functions/src/adapters/firestore/step-history-store.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { historyIocs } from "../../../functions/src/agent/compression/iocs.js";
import { SUMMARY_MARKER } from "../../../functions/src/agent/compression/summary-message.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import { investigationIdFor, TERMINAL_STATUSES } from "../../../functions/src/domain/investigation.js";
import { iocKey } from "../../../functions/src/domain/ioc.js";
import { type JsonObject, jsonBytes } from "../../../functions/src/domain/json.js";
import { type LocalStack, startLocalStack } from "../../../functions/src/local/stack.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { TOPICS } from "../../../functions/src/platform/topics.js";
import type { StepHistory } from "../../../functions/src/ports/step-history-store.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import {
  FakeGemini,
  type FakeReply,
  type GeminiContent,
  type GeminiPart,
  type GeminiRequest,
  geminiAnswer,
  tokenLimitRefusal,
} from "../../helpers/fake-gemini.js";
import { waitFor } from "../../helpers/wait-for.js";
import { type InspectingProxy, startInspectingProxy } from "./support/inspecting-proxy.js";

/**
 * Context compression through the real pipeline: Pub/Sub → ingest → workflow runner →
 * function servers configured for Gemini, with a local Gemini stand-in that refuses one
 * step request with the provider's token-limit error. Nothing in the functions knows it
 * is a test: the stepExecutor reports context pressure, the workflow calls the compressor
 * function, which persists the compressed history, and the workflow re-runs the step.
 */
const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));
const STEP_ID = "pool-intel";
const POOL_IP = "203.0.113.88";
const POOL_DOMAIN = "xmr.pool-relay.top";

const PLAN = {
  objective: "Did etl-worker-1 run a cryptominer that reached an external mining pool?",
  successCriteria: ["threat intelligence confirms or clears the pool"],
  constraints: [],
  steps: [
    {
      id: STEP_ID,
      description: `Look up the pool ${POOL_DOMAIN} and ${POOL_IP} in threat intelligence.`,
      tools: ["threat_intel_lookup"],
      expected: "verdicts for the pool domain and address",
      dependsOn: [],
    },
  ],
};

const REPORT = {
  outcome: "answered",
  summary: `${POOL_DOMAIN} (${POOL_IP}) is a known XMR mining pool in threat intelligence.`,
  facts: [`threat_intel_lookup: ${POOL_IP} malicious`, `threat_intel_lookup: ${POOL_DOMAIN} malicious`],
  iocs: [
    { type: "ip", value: POOL_IP, context: "mining pool" },
    { type: "domain", value: POOL_DOMAIN, context: "mining pool" },
  ],
};

const CONCLUSION = {
  verdict: "true_positive",
  confidence: 0.9,
  severity: "HIGH",
  summary: `etl-worker-1 mined cryptocurrency for the pool ${POOL_DOMAIN} (${POOL_IP}).`,
  mitre: [{ tactic: "Impact", techniqueId: "T1496", techniqueName: "Resource Hijacking" }],
  keyFindings: [
    {
      finding: "The pool is known bad",
      evidence: [{ stepId: STEP_ID, source: "threat_intel_lookup", detail: `${POOL_IP} malicious` }],
    },
  ],
  iocs: REPORT.iocs,
  recommendedActions: [
    { action: "Stop etl-worker-1 and rotate its service account keys", priority: "immediate" },
  ],
  openQuestions: [],
};

const functionResponses = (contents: GeminiContent[]) =>
  contents.flatMap((c) => c.parts).filter((p) => p.functionResponse).length;
const firstText = (contents: GeminiContent[]) => contents[0]?.parts[0]?.text ?? "";

/** An answer with usage small enough never to trip preventive compression. */
const candidate = (parts: GeminiPart[]): FakeReply =>
  geminiAnswer(parts, {
    usageMetadata: { promptTokenCount: 1_200, candidatesTokenCount: 80, totalTokenCount: 1_280 },
  });
const jsonAnswer = (value: unknown): FakeReply => candidate([{ text: JSON.stringify(value) }]);

/** Gemini as each role would answer; one over-long step request is refused, once. */
function geminiFor(state: { refused: boolean }) {
  return (call: GeminiRequest): FakeReply => {
    switch (call.role) {
      case "planner":
        return jsonAnswer(PLAN);
      case "executor": {
        if (firstText(call.contents).startsWith(SUMMARY_MARKER)) return jsonAnswer(REPORT);
        const answered = functionResponses(call.contents);
        if (answered === 0)
          return candidate([
            {
              functionCall: {
                name: "threat_intel_lookup",
                args: { indicators: [{ type: "ip", value: POOL_IP }] },
              },
            },
          ]);
        if (answered === 1)
          return candidate([
            {
              functionCall: {
                name: "threat_intel_lookup",
                args: { indicators: [{ type: "domain", value: POOL_DOMAIN }] },
              },
            },
          ]);
        if (!state.refused) {
          state.refused = true;
          return tokenLimitRefusal();
        }
        return jsonAnswer(REPORT);
      }
      case "compressor":
        // Like a careless model: the gist, not one indicator.
        return candidate([
          {
            text: "Goal: decide whether the VM mined crypto.\nFindings: intel was consulted twice.\nStatus: open.",
          },
        ]);
      case "reflector":
        return jsonAnswer({
          achieved: true,
          insights: ["the pool is known bad"],
          updates: [],
          rationale: "intel settles it",
        });
      case "concluder":
        return jsonAnswer(CONCLUSION);
      default:
        return {
          status: 400,
          json: { error: { code: 400, message: "unknown role", status: "INVALID_ARGUMENT" } },
        };
    }
  };
}

interface HistoryView {
  compressions: number;
  pending: boolean;
  headIsSummary: boolean;
  revision: number;
}

describe("context compression on the local stack", { timeout: 600_000 }, () => {
  let stack: LocalStack;
  let gemini: FakeGemini;
  let stepProxy: InspectingProxy<HistoryView | null>;
  let compressorProxy: InspectingProxy<StepHistory>;
  let histories: FirestoreStepHistoryStore;
  const projectId = uniqueProjectId("e2e-compress");
  const workDir = mkdtempSync(join(tmpdir(), "ferret-e2e-compress-"));
  const notification = structuredClone(scenario.notification) as JsonObject & { finding: { name: string } };
  notification.finding.name = `${notification.finding.name}-compression`;
  const finding = normalizeNotification(parseNotification(notification));
  const id = investigationIdFor(finding.name, finding.eventTime);

  before(async () => {
    await ensureEmulators();
    gemini = await FakeGemini.start({ respond: geminiFor({ refused: false }), embeddings: true });
    stack = await startLocalStack({
      projectId,
      workDir,
      env: {
        FERRET_MODEL_PROVIDER: "gemini",
        GEMINI_API_KEY: "test-key-for-the-local-stand-in",
        GOOGLE_GEMINI_BASE_URL: gemini.url,
        // A failure must surface, not be papered over by the offline model.
        FERRET_FALLBACK_TO_OFFLINE: "false",
        FERRET_DUCKDB_DIR: scenario.logsDir as string,
        FERRET_STIX_BUNDLE: scenario.stixBundle as string,
      },
      routeForWorkflow: async (name, url) => {
        if (name === "stepExecutor") {
          // What Firestore holds at the moment each step call arrives.
          stepProxy = await startInspectingProxy(url, async (body) => {
            const history = await histories.get(id, (body as { stepId: string }).stepId);
            return history ? view(history) : null;
          });
          return stepProxy.url;
        }
        if (name === "compressor") {
          // The history as the compressor is about to read it.
          compressorProxy = await startInspectingProxy(url, (body) =>
            histories.get(id, (body as { stepId: string }).stepId),
          );
          return compressorProxy.url;
        }
        return url;
      },
    });
    histories = new FirestoreStepHistoryStore(createFirestore({ projectId }));
  });

  after(async () => {
    await stack?.stop();
    await stepProxy?.close();
    await compressorProxy?.close();
    await gemini?.stop();
  });

  test("a step refused for its length is compressed, persisted, retried and the investigation concludes", async () => {
    const store = new FirestoreInvestigationStore(createFirestore({ projectId }));
    const bus = new PubSubEventBus(projectId);
    await bus.publish(TOPICS.findings, notification);
    await bus.close();
    const inv = await waitFor(
      `investigation ${id} to finish`,
      async () => {
        const current = await store.get(id);
        return current && TERMINAL_STATUSES.includes(current.status) ? current : undefined;
      },
      180_000,
    );
    assert.equal(inv.status, "concluded", inv.reason);
    assert.equal(inv.conclusion?.verdict, "true_positive");
    assert.equal(inv.fellBackToOffline, false, "Gemini (the stand-in) served the whole investigation");

    // The provider refused exactly one request, a step request carrying two tool rounds.
    const refused = gemini.requests.filter((c) => c.status === 400);
    assert.equal(refused.length, 1);
    assert.equal(refused[0]?.role, "executor");
    assert.equal(functionResponses(refused[0]?.contents ?? []), 2);

    // The workflow: step → context_pressure, compressor, step again → done.
    const stepCalls = stepProxy.calls.filter((c) => (c.body as { stepId?: string }).stepId === STEP_ID);
    assert.equal(stepCalls.length, 2, "the step was called twice");
    assert.deepEqual(
      stepCalls.map((c) => (c.answer as { status: string }).status),
      ["context_pressure", "done"],
    );
    assert.equal(compressorProxy.calls.length, 1, "the compressor function was called once");
    const compressorCall = compressorProxy.calls[0];
    assert.ok(compressorCall);
    assert.deepEqual(compressorCall.body, { investigationId: id, stepId: STEP_ID });
    assert.equal(compressorCall.status, 200);
    assert.equal((compressorCall.answer as { compressed: boolean }).compressed, true);

    // Persisted before the retry: what Firestore held when the second step call arrived.
    assert.deepEqual(stepCalls[0]?.seen, null, "no history before the first run");
    assert.equal(stepCalls[1]?.seen?.compressions, 1);
    assert.equal(stepCalls[1]?.seen?.pending, false);
    assert.equal(stepCalls[1]?.seen?.headIsSummary, true);

    // And the retried model request is that persisted history.
    const stored = await histories.get(id, STEP_ID);
    assert.ok(stored);
    const retried = gemini.requests.filter(
      (c) => c.role === "executor" && firstText(c.contents).startsWith(SUMMARY_MARKER),
    );
    assert.equal(retried.length, 1);
    const head = stored.messages[0];
    assert.equal(firstText(retried[0]?.contents ?? []), head?.role === "user" ? head.text : undefined);
    // The stand-in's summary named no indicator; the code put them back.
    const before = compressorCall.seen;
    assert.ok(before?.pressure, "the compressor found the history waiting for it");
    const after = new Set(historyIocs(stored.messages).map(iocKey));
    const lost = historyIocs(before.messages).filter((ioc) => !after.has(iocKey(ioc)));
    assert.deepEqual(lost, [], "no indicator of the uncompressed history was lost");
    // Smaller in bytes: where the 70% split falls (after the task message alone, or after the
    // first tool round too) depends on how large the finding in the task message is.
    assert.ok(before.messages.length > stored.messages.length - 1, "no message was added");
    assert.ok(jsonBytes(stored.messages) < jsonBytes(before.messages));
    // Every indicator of the summarized messages that the kept messages do not carry is appended
    // to the summary verbatim (the stand-in's summary named none), whichever messages the split
    // took: the pool IP sits in the task message or in the first tool round.
    const headText = head?.role === "user" ? head.text : "";
    const replaced = Number(/replaces the first (\d+) messages/.exec(headText)?.[1]);
    assert.ok(replaced >= 1, headText.slice(0, 300));
    const kept = new Set(historyIocs(stored.messages.slice(1)).map(iocKey));
    const mustAppend = historyIocs(before.messages.slice(0, replaced)).filter(
      (ioc) => !kept.has(iocKey(ioc)),
    );
    assert.ok(mustAppend.length > 0, "the summarized messages held indicators found nowhere else");
    const appended = headText.slice(headText.indexOf("appended by ferret, verbatim"));
    for (const ioc of mustAppend) assert.ok(appended.includes(`- ${ioc.type}: ${ioc.value}`), iocKey(ioc));
    assert.ok(JSON.stringify(stored.messages).includes("203.0.113.88"), "the pool IP survived");
    const compressorRequests = gemini.requests.filter((c) => c.role === "compressor");
    assert.equal(compressorRequests.length, 1);
    assert.match(firstText(compressorRequests[0]?.contents ?? []), /kind="conversation_history"/);

    // Written once, and told.
    const results = await store.listStepResults(id);
    assert.equal(results.filter((r) => r.stepId === STEP_ID).length, 1, "the step result was written once");
    assert.equal(results.length, inv.counters.stepsExecuted);
    const events = await store.listEvents(id);
    const compressed = events.filter((e) => e.type === "compressed");
    assert.equal(compressed.length, 1);
    assert.equal(compressed[0]?.stepId, STEP_ID);
    assert.equal(events.filter((e) => e.type === "step_started" && e.stepId === STEP_ID).length, 1);
    const chatFile = join(workDir, "slack-messages.jsonl");
    await waitFor("the compression note in the chat", async () =>
      existsSync(chatFile) && readFileSync(chatFile, "utf8").includes("Context compressed")
        ? true
        : undefined,
    );
  });
});

function view(history: StepHistory): HistoryView {
  const head = history.messages[0];
  return {
    compressions: history.compressions,
    pending: history.pressure !== undefined,
    headIsSummary: head?.role === "user" && head.text.startsWith(SUMMARY_MARKER),
    revision: history.revision,
  };
}
