import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreMemoryStore } from "../../../functions/src/adapters/firestore/memory-store.js";
import { ModelUnavailableError } from "../../../functions/src/domain/errors.js";
import { factEmbeddingText, factText, type MemoryFact } from "../../../functions/src/memory/fact.js";
import { introspectSession } from "../../../functions/src/memory/introspect.js";
import { memoryIdFor } from "../../../functions/src/memory/memory.js";
import { createRecall } from "../../../functions/src/memory/recall.js";
import { hashEmbedding } from "../../../functions/src/model/hash-embedding.js";
import { createLogger, type LogSink } from "../../../functions/src/platform/logger.js";
import { promptFor } from "../../helpers/brief-prompt.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";
import { splitFences } from "../../unit/prompts/support.js";
import { session, snapshotMemories } from "./support.js";

/**
 * The memory loop on the Firestore emulator with a scripted model: recall before a session,
 * introspection after it. The scripted model records every request, so the tests assert
 * what the introspector was shown as well as what it changed.
 */
const SPACE = "scripted-hash";
const REQUEST = "Which principals called SetIamPolicy on project prod-1 between 10:00 and 11:00?";
const at = (day: number) => new Date(Date.UTC(2026, 3, day));

let db: Firestore;
let store: FirestoreMemoryStore;
const logLines: Array<Record<string, unknown>> = [];
const sink: LogSink = { write: (line) => logLines.push(JSON.parse(line) as Record<string, unknown>) };
const logger = createLogger({ sink });

before(async () => {
  await ensureEmulators();
  db = createFirestore({ projectId: uniqueProjectId("mem-introspect") });
  store = new FirestoreMemoryStore(db);
});
after(async () => {
  await db.terminate();
});

type ColumnFormat = Extract<MemoryFact, { kind: "column_format" }>;
const audit = (column: string, format: ColumnFormat["format"]): MemoryFact => ({
  kind: "column_format",
  table: "cloudaudit_googleapis_com_activity",
  column,
  format,
});

/**
 * A stand-in for a real embedding model's notion of "about the same thing": the request and
 * every text about the audit table are one vector; anything else is its own hash. Memories are
 * embedded from their fact's text (factEmbeddingText), requests as they are.
 */
function topical(text: string): number[] {
  return hashEmbedding(
    text === REQUEST || text.includes("cloudaudit_googleapis_com_activity") ? "audit" : text,
  );
}
const embedTopically = { embed: (r: { texts: string[] }) => r.texts.map(topical) };

/** Seeds a memory whose embedding is that of `about`, as if the introspector had stored it. */
async function remember(fact: MemoryFact, about: string, label = factText(fact)): Promise<string> {
  const sessionId = `seed:${label}`;
  const id = memoryIdFor("log_analyst", sessionId, fact);
  await store.applyIntrospection({
    sessionId,
    investigationId: "inv-seed",
    scope: "log_analyst",
    created: [{ id, fact, embedding: topical(about) }],
    embeddingSpace: SPACE,
    helpful: [],
    harmful: [],
    model: "seed",
    at: at(1),
  });
  return id;
}

function fencedJson(text: string, kind: string): unknown {
  const fence = splitFences(text).fences.find((f) => f.kind === kind);
  assert.ok(fence, `a ${kind} fence`);
  return JSON.parse(fence.body);
}

describe("recall → session → introspection, over five sessions", () => {
  const INVENTED = memoryIdFor(
    "log_analyst",
    "nowhere",
    audit("protopayload_auditlog.methodName", "json_text"),
  );
  const NEW_FACT = audit("protopayload_auditlog.methodName", "api_method");
  let harmful: string;
  let helpful: string;
  let unused: string;
  let unrelated: string;

  test("a memory judged harmful in four sessions is gone; a helpful one rises; unused and unrelated ones keep their score", async () => {
    harmful = await remember(
      audit("protopayload_auditlog.requestMetadata.callerIp", "email_address"),
      REQUEST,
    );
    helpful = await remember(
      audit("protopayload_auditlog.authenticationInfo.principalEmail", "email_address"),
      REQUEST,
    );
    unused = await remember(audit("timestamp", "utc_timestamp"), REQUEST);
    unrelated = await remember(
      {
        kind: "column_format",
        table: "compute_googleapis_com_vpc_flows",
        column: "jsonPayload.bytes_sent",
        format: "integer_as_string",
      },
      "Bytes sent from etl-worker-1 to 45.9.148.108",
    );
    const unrelatedBefore = (await snapshotMemories(db))[unrelated];
    const unusedBefore = await store.get(unused);

    const model = new ScriptedModel(
      {
        introspector: Array.from({ length: 5 }, () => (_request, index) => ({
          json: {
            facts: index === 0 ? [NEW_FACT] : [],
            helpfulMemoryIds: [helpful],
            harmfulMemoryIds: index < 4 ? [harmful, INVENTED] : [INVENTED],
          },
        })),
      },
      embedTopically,
    );
    const recall = createRecall({
      model,
      store,
      settings: { minSimilarity: 0.8, maxRecalled: 32 },
      embeddingSpace: SPACE,
      now: () => at(10),
    });
    const scores: Array<number | undefined> = [];
    const recalledPerSession: string[][] = [];
    for (let n = 1; n <= 5; n++) {
      const recalled = await recall(REQUEST);
      recalledPerSession.push(recalled.map((m) => m.id));
      const report = await introspectSession(
        session({
          sessionId: `inv-1/step-${n}/log_analysis`,
          request: REQUEST,
          recalledMemoryIds: recalled.map((m) => m.id),
        }),
        { model, store, embeddingSpace: SPACE, logger, now: () => at(10 + n) },
      );
      assert.equal(report.applied, true);
      assert.deepEqual(report.ignored, [INVENTED], "the invented id is ignored every time");
      scores.push((await store.get(harmful))?.score);
    }
    assert.deepEqual(scores, [-1, -2, -3, undefined, undefined], "deleted once below −3");
    assert.equal((await store.get(helpful))?.score, 5);
    const unusedAfter = await store.get(unused);
    assert.equal(unusedAfter?.score, 0, "never judged, never scored");
    assert.equal(unusedAfter?.updatedAt, unusedBefore?.updatedAt);
    assert.equal(unusedAfter?.useCount, 5, "it was put into five prompts");
    assert.deepEqual(
      (await snapshotMemories(db))[unrelated],
      unrelatedBefore,
      "never recalled: not a field changed",
    );

    // What recall found: the three seeded memories first, then (from session 2) the new fact too.
    const learned = memoryIdFor("log_analyst", "inv-1/step-1/log_analysis", NEW_FACT);
    assert.deepEqual(new Set(recalledPerSession[0]), new Set([harmful, helpful, unused]));
    assert.ok(
      recalledPerSession[1]?.includes(learned),
      "the fact learned in session 1 is recalled by session 2",
    );
    assert.ok(!recalledPerSession[1]?.includes(unrelated));
    assert.ok(!recalledPerSession[4]?.includes(harmful), "the deleted memory is no longer recalled");
    assert.deepEqual((await store.get(learned))?.fact, NEW_FACT);
    assert.equal((await store.get(learned))?.embeddingSpace, SPACE);

    // The new fact's own text (never the session's request) was embedded once, as a retrieval document.
    assert.deepEqual(
      model.embedRequests.filter((r) => r.task === "RETRIEVAL_DOCUMENT"),
      [{ texts: [factEmbeddingText(NEW_FACT)], task: "RETRIEVAL_DOCUMENT", dimensions: 768 }],
    );
    assert.equal(model.embedRequests.filter((r) => r.task === "RETRIEVAL_QUERY").length, 5);
    assert.equal(model.remaining("introspector"), 0);

    // Each introspection was shown exactly the memories its session recalled, with their ids.
    const shown = model.requestsFor("introspector").map((r) => {
      const user = r.messages[0];
      return user?.role === "user"
        ? (fencedJson(user.text, "provided_memories") as Array<{ id: string }>)
        : [];
    });
    shown.forEach((memories, i) => {
      assert.deepEqual(
        memories.map((m) => m.id),
        recalledPerSession[i],
      );
    });
    assert.ok(
      logLines.some(
        (l) => l.message === "the introspector judged memories this session was not given; ignored",
      ),
    );
  });
});

describe("what the introspector model receives", () => {
  test("system rules, the request, the memories that still exist with ids, the transcript and the answer, fenced", async () => {
    const factA = audit("protopayload_auditlog.methodName", "api_method");
    const a = await remember(factA, "request A", "shown A");
    const gone = await remember(audit("protopayload_auditlog.serviceName", "upper_case_code"), "request A");
    await store.delete(gone);
    const model = new ScriptedModel({
      introspector: [{ json: { facts: [], helpfulMemoryIds: [], harmfulMemoryIds: [] } }],
    });
    const s = session({ sessionId: "shown-1", recalledMemoryIds: [a, gone] });
    await introspectSession(s, { model, store, embeddingSpace: SPACE, logger, now: () => at(20) });
    const [request] = model.requestsFor("introspector");
    assert.ok(request);
    assert.match(request.system, /reusable knowledge/);
    assert.match(request.system, /judge only those ids/);
    assert.equal(request.investigationId, "inv-1");
    assert.ok(request.responseSchema, "structured output requested");
    const user = request.messages[0];
    assert.equal(user?.role, "user");
    const text = user?.role === "user" ? user.text : "";
    assert.deepEqual(fencedJson(text, "provided_memories"), [{ id: a, fact: factText(factA) }]);
    assert.deepEqual(fencedJson(text, "agent_request"), s.request);
    assert.deepEqual(fencedJson(text, "session_transcript"), s.transcript);
    assert.deepEqual(fencedJson(text, "agent_answer"), s.answer);
    assert.deepEqual(request.brief, {
      role: "introspector",
      session: s,
      recalled: [{ id: a, fact: factA }],
      maxFacts: 8,
    });
    const rendered = promptFor(request.brief);
    assert.equal(request.system, rendered.system, "the prompt is the brief's rendering (decision 0042)");
    assert.deepEqual(request.messages, [{ role: "user", text: rendered.user }]);
  });
});

describe("failures and redelivery", () => {
  test("an unavailable model changes nothing; the redelivery applies once; a third delivery skips the model", async () => {
    const m = await remember(audit("protopayload_auditlog.status.code", "integer_code"), "request B");
    const model = new ScriptedModel({
      introspector: [
        new ModelUnavailableError("429 from the provider"),
        {
          json: {
            facts: [
              {
                kind: "column_format",
                table: "syslog",
                column: "labels.compute_googleapis_com_resource_name",
                format: "raw_text_line",
              },
            ],
            helpfulMemoryIds: [m],
            harmfulMemoryIds: [],
          },
        },
      ],
    });
    const s = session({ sessionId: "retry-1", request: "request B", recalledMemoryIds: [m] });
    const deps = { model, store, embeddingSpace: SPACE, logger, now: () => at(21) };
    const before = await snapshotMemories(db);
    await assert.rejects(introspectSession(s, deps), ModelUnavailableError);
    assert.deepEqual(await snapshotMemories(db), before, "nothing written by the failed attempt");
    assert.equal(await store.wasIntrospected("retry-1"), false);

    const first = await introspectSession(s, deps);
    assert.equal(first.applied, true);
    assert.deepEqual(first.raised, [m]);
    assert.equal(first.created.length, 1);
    const applied = await snapshotMemories(db);

    const again = await introspectSession(s, deps);
    assert.equal(again.applied, false);
    assert.equal(model.requestsFor("introspector").length, 2, "the redelivery did not call the model");
    assert.deepEqual(await snapshotMemories(db), applied);
  });

  test("without a request, facts are still stored: each is found by its own text; judgements apply", async () => {
    const m = await remember(audit("protopayload_auditlog.status.code", "null_or_zero_when_ok"), "request C");
    const fact = audit("protopayload_auditlog.resourceName", "resource_path");
    const model = new ScriptedModel({
      introspector: [{ json: { facts: [fact], helpfulMemoryIds: [m], harmfulMemoryIds: [] } }],
    });
    const report = await introspectSession(
      session({ sessionId: "no-request", request: "   ", recalledMemoryIds: [m] }),
      { model, store, embeddingSpace: SPACE, logger, now: () => at(22) },
    );
    assert.deepEqual(report.created, [memoryIdFor("log_analyst", "no-request", fact)]);
    assert.deepEqual(report.raised, [m]);
    assert.deepEqual(
      model.embedRequests.map((r) => r.texts),
      [[factEmbeddingText(fact)]],
    );
  });
});
