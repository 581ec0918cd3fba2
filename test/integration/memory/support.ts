import type { Firestore } from "@google-cloud/firestore";
import type { LogAnalystSession } from "../../../functions/src/domain/log-analyst-session.js";
import type { MemoryFact } from "../../../functions/src/memory/fact.js";
import { type MemoryId, memoryIdFor } from "../../../functions/src/memory/memory.js";
import type { MemoryStore } from "../../../functions/src/memory/store.js";
import { EMBEDDING_DIMENSIONS } from "../../../functions/src/model/port.js";
import { sampleFact } from "../../helpers/memory-facts.js";

export const SPACE = "test-space";

/**
 * A 768-d unit vector whose cosine similarity to axis(0) is exactly `similarity`: it lies
 * in the plane of axes 0 and `plane`, at angle acos(similarity) from axis 0.
 */
export function atSimilarity(similarity: number, plane = 1): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  v[0] = similarity;
  v[plane] = Math.sqrt(1 - similarity * similarity);
  return v;
}

export function axis(i: number): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  v[i] = 1;
  return v;
}

/** Stores one memory through the port (a session of its own) and returns its id; a string stands for sampleFact(string). */
export async function seedMemory(
  store: MemoryStore,
  fact: MemoryFact | string,
  embedding: number[],
  options: { scope?: string; space?: string; at?: Date } = {},
): Promise<MemoryId> {
  const scope = options.scope ?? "log_analyst";
  const typed = typeof fact === "string" ? sampleFact(fact) : fact;
  const label = typeof fact === "string" ? fact : JSON.stringify(fact);
  const sessionId = `seed:${label}`;
  const id = memoryIdFor(scope, sessionId, typed);
  const outcome = await store.applyIntrospection({
    sessionId,
    investigationId: "inv-seed",
    scope,
    created: [{ id, fact: typed, embedding }],
    embeddingSpace: options.space ?? SPACE,
    helpful: [],
    harmful: [],
    model: "seed",
    at: options.at ?? new Date("2026-01-01T00:00:00.000Z"),
  });
  if (!outcome.created.includes(id)) throw new Error(`seed of ${label} created nothing`);
  return id;
}

/** Every memory document as stored (embedding as an array), by id, for before/after comparisons. */
export async function snapshotMemories(db: Firestore): Promise<Record<string, unknown>> {
  const docs = await db.collection("memories").get();
  return Object.fromEntries(
    docs.docs.map((d) => {
      const data = d.data();
      const embedding: unknown = data.embedding;
      const plain =
        typeof embedding === "object" && embedding !== null && "toArray" in embedding
          ? (embedding as { toArray(): number[] }).toArray()
          : embedding;
      return [d.id, { ...data, embedding: plain }];
    }),
  );
}

export function session(overrides: Partial<LogAnalystSession> = {}): LogAnalystSession {
  return {
    sessionId: "inv-1/step-2/log_analysis/1",
    investigationId: "inv-1",
    stepId: "step-2",
    agent: "log_analyst",
    request: "Which principals called SetIamPolicy on project prod-1 between 10:00 and 11:00?",
    recalledMemoryIds: [],
    transcript: [
      {
        role: "user",
        text: "Which principals called SetIamPolicy on project prod-1 between 10:00 and 11:00?",
      },
      {
        role: "model",
        toolCalls: [
          {
            name: "log_query",
            args: {
              sql: "SELECT protopayload_auditlog.authenticationInfo.principalEmail FROM cloudaudit_googleapis_com_activity WHERE protopayload_auditlog.methodName = 'SetIamPolicy' AND timestamp BETWEEN @start AND @end",
            },
          },
        ],
      },
      { role: "tool", toolResults: [{ name: "log_query", ok: true, summary: "query: 2 row(s)" }] },
      { role: "model", text: "Two principals did." },
    ],
    answer: "ci@prod-1.iam.gserviceaccount.com and alice@example.com called SetIamPolicy.",
    model: "scripted",
    startedAt: "2026-01-02T10:00:00.000Z",
    finishedAt: "2026-01-02T10:01:00.000Z",
    ...overrides,
  };
}
