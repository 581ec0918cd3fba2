import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { type Investigation, TERMINAL_STATUSES } from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { type LocalStack, startLocalStack } from "../../../functions/src/local/stack.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { TOPICS } from "../../../functions/src/platform/topics.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { apiError, FakeGemini, type FakeReply, textAnswer } from "../../helpers/fake-gemini.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import { waitFor } from "../../helpers/wait-for.js";
import { figure } from "./support/figures.js";
import { type Variant, variantOf } from "./support/findings.js";

/**
 * Gemini configured, Gemini broken. The function servers run with FERRET_MODEL_PROVIDER=gemini
 * against a local fake of the Developer API (GOOGLE_GEMINI_BASE_URL) that answers each
 * investigation with its own fault. Whatever the fault, the investigation must end
 * concluded or needs_human with a reason, on the offline model, and say so.
 */
const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));
const TOKEN = "xoxb-test-model-outage";

/** A plan a healthy Gemini could have written, for the fault that starts after planning. */
const GEMINI_PLAN = {
  objective: "Did etl-worker-1 run a cryptominer that reached an external mining pool?",
  successCriteria: ["Connections from the instance to the pool are found or ruled out"],
  constraints: [],
  steps: [
    {
      id: "pool-dns",
      description:
        "Query DNS queries and VPC flows from instance etl-worker-1 for the pool domain xmr.pool-relay.top around the finding's event time.",
      tools: ["log_query"],
      expected: "Lookups of and connections to the pool, or none",
      dependsOn: [],
    },
    {
      id: "intel",
      description: "Look up xmr.pool-relay.top and the miner binary's sha256 in threat intelligence.",
      tools: ["threat_intel_lookup"],
      expected: "Whether the pool and binary are known bad",
      dependsOn: [],
    },
  ],
};

interface FaultCase {
  /** Put in the finding name; the fake routes on it. */
  marker: string;
  what: string;
  reply: (isPlanner: boolean) => FakeReply;
}

const CASES: FaultCase[] = [
  {
    marker: "fault-storm-503",
    what: "every call answers 503 UNAVAILABLE",
    reply: () => apiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
  },
  {
    marker: "fault-storm-429",
    what: "every call answers 429 RESOURCE_EXHAUSTED with a RetryInfo of 1 s",
    reply: () =>
      apiError(429, "RESOURCE_EXHAUSTED", "Quota exceeded", [
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" },
      ]),
  },
  {
    marker: "fault-garbage-body",
    what: "every call answers 200 with a body that is not JSON",
    reply: () => ({ status: 200, raw: '{"candidates": [{"content": {"parts": [{"te' }),
  },
  {
    marker: "fault-schema-break",
    what: "every call answers 200 with prose where JSON matching the schema is required",
    reply: () => textAnswer("Sure! The plan is to look at the logs and then decide. Let me know."),
  },
  {
    marker: "fault-midway-503",
    what: "the planner gets a valid plan, every later call answers 503",
    reply: (isPlanner) =>
      isPlanner ? textAnswer(JSON.stringify(GEMINI_PLAN)) : apiError(503, "UNAVAILABLE", "Backend error"),
  },
  {
    marker: "fault-midway-schema",
    what: "the planner gets a valid plan, every later answer is prose instead of the required JSON",
    reply: (isPlanner) =>
      isPlanner ? textAnswer(JSON.stringify(GEMINI_PLAN)) : textAnswer("All good here, nothing to report!"),
  },
];

describe("the model stays unavailable: investigations continue on the offline model", {
  timeout: 600_000,
}, () => {
  let stack: LocalStack;
  let store: FirestoreInvestigationStore;
  let bus: PubSubEventBus;
  let slack: SlackReceiver;
  let gemini: FakeGemini;
  const projectId = uniqueProjectId("model-outage");
  const variants = new Map<string, Variant>(
    CASES.map((c) => [c.marker, variantOf(scenario.notification as JsonObject, `-${c.marker}`)]),
  );

  before(async () => {
    await ensureEmulators();
    slack = await startSlackReceiver({ token: TOKEN });
    gemini = await FakeGemini.start({
      respond: ({ text }) => {
        const fault = CASES.find((c) => text.includes(c.marker));
        if (!fault) return apiError(599, "UNKNOWN", "no fault case matches this request");
        return fault.reply(text.includes("You plan investigations for ferret"));
      },
    });
    stack = await startLocalStack({
      projectId,
      workDir: mkdtempSync(join(tmpdir(), "ferret-model-outage-")),
      env: {
        FERRET_MODEL_PROVIDER: "gemini",
        GEMINI_API_KEY: "test-key-not-a-secret",
        GOOGLE_API_KEY: "",
        GOOGLE_GENAI_USE_VERTEXAI: "false",
        GOOGLE_GEMINI_BASE_URL: gemini.url,
        FERRET_GEMINI_TIMEOUT_MS: "10000",
        FERRET_DUCKDB_DIR: scenario.logsDir as string,
        FERRET_STIX_BUNDLE: scenario.stixBundle as string,
        SLACK_BOT_TOKEN: TOKEN,
        FERRET_SLACK_CHANNEL: "C0FERRET",
        FERRET_SLACK_API_URL: slack.url,
      },
    });
    store = new FirestoreInvestigationStore(createFirestore({ projectId }));
    bus = new PubSubEventBus(projectId);
  });

  after(async () => {
    await bus?.close();
    await stack?.stop();
    await gemini?.stop();
    await slack?.close();
  });

  test("every fault ends concluded or needs_human on the offline model, and the conclusion says the LLM was unavailable", async (t) => {
    await Promise.all([...variants.values()].map((v) => bus.publish(TOPICS.findings, v.notification)));
    const finished = await Promise.all(
      [...variants.entries()].map(
        async ([marker, v]) =>
          [
            marker,
            await waitFor(
              `investigation ${marker} to finish`,
              async () => {
                const inv = await store.get(v.id);
                return inv && TERMINAL_STATUSES.includes(inv.status) ? inv : undefined;
              },
              240_000,
            ),
          ] as const,
      ),
    );
    const outcomes = new Map<string, Investigation>(finished);
    // Print every case first, so one failure does not hide how the others ended.
    for (const fault of CASES) {
      const inv = outcomes.get(fault.marker) as Investigation;
      const calls = gemini.requests.filter((c) => c.text.includes(fault.marker));
      t.diagnostic(
        `${fault.marker} (${fault.what}): ${inv.status}${inv.reason ? ` (${inv.reason})` : ""}; ` +
          `${calls.length} Gemini call(s); fellBackToOffline=${inv.fellBackToOffline}; note: ${inv.conclusion?.producedBy.note ?? "-"}`,
      );
    }
    let good = 0;
    for (const fault of CASES) {
      const inv = outcomes.get(fault.marker) as Investigation;
      const calls = gemini.requests.filter((c) => c.text.includes(fault.marker));
      assert.ok(calls.length > 0, `${fault.marker}: the fake Gemini was called`);
      assert.ok(
        inv.status === "concluded" || (inv.status === "needs_human" && Boolean(inv.reason)),
        `${fault.marker}: ended ${inv.status} (${inv.reason ?? "no reason"})`,
      );
      assert.equal(inv.fellBackToOffline, true, `${fault.marker}: fellBackToOffline is recorded`);
      assert.ok(inv.conclusion, `${fault.marker}: a conclusion was written`);
      assert.equal(inv.conclusion.producedBy.offline, true);
      assert.match(inv.conclusion.producedBy.note ?? "", /unavailable/i, `${fault.marker}: the note says so`);
      good += 1;
    }
    figure(
      t,
      "model faults injected → investigations concluded or needs_human on the offline model",
      `${CASES.length} → ${good}`,
    );

    // The midway cases really started on Gemini: their plan is the one the fake wrote.
    for (const marker of ["fault-midway-503", "fault-midway-schema"]) {
      const midway = outcomes.get(marker) as Investigation;
      assert.deepEqual(
        midway.plan?.steps.slice(0, GEMINI_PLAN.steps.length).map((s) => s.id),
        GEMINI_PLAN.steps.map((s) => s.id),
        `${marker}: the plan came from "Gemini"`,
      );
      const results = await store.listStepResults(midway.id);
      assert.ok(
        results.length > 0 && results.every((r) => r.model === "offline-playbook"),
        `${marker}: the steps were finished by the offline model`,
      );
    }

    // Retries before giving up: withRetry's 4 attempts per call, then the fallback.
    const storm = gemini.requests.filter((c) => c.text.includes("fault-storm-503"));
    figure(t, "Gemini attempts per investigation before falling back (503 storm)", storm.length);
    assert.ok(storm.length >= 4, "the 503 storm was retried before falling back");

    // The conclusion that reaches Slack says the LLM was unavailable.
    for (const v of variants.values()) {
      await waitFor(`the conclusion of ${v.id} in Slack`, async () => {
        const posts = slack.posts();
        const root = posts.find(
          (p) => p.args.thread_ts === undefined && JSON.stringify(p.args).includes(v.id),
        );
        if (!root) return undefined;
        const replies = posts.filter((p) => p.args.thread_ts === root.answer.ts);
        return replies.some((p) => /unavailable/i.test(JSON.stringify(p.args.blocks))) ? true : undefined;
      });
    }
  });
});
