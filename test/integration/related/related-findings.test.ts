import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreFindingEmbeddings } from "../../../functions/src/adapters/firestore/finding-embeddings.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { StorageError } from "../../../functions/src/domain/errors.js";
import type { Investigation } from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import type { EmbedRequest } from "../../../functions/src/model/port.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";
import {
  createRelatedFindingsTool,
  type FindingEmbeddings,
  findingEmbeddingText,
  indexFindingEmbedding,
} from "../../../functions/src/tools/related-findings.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildInvestigation } from "../../helpers/investigation-builders.js";
import { QUERY, unitWithSimilarity } from "./vectors.js";

const VM = "//compute.googleapis.com/projects/p/zones/z/instances/web-1";
const other = (n: number) => `//compute.googleapis.com/projects/p/zones/z/instances/other-${n}`;
const ALICE = "alice@example.com";
/** Known only by its vector: an older investigation of a similar finding elsewhere. */
const SIMILAR_ID = "inv-5151a4000000000000000000";
const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, "0")}:00.000Z`;

function concluded(inv: Investigation, verdict: "true_positive" | "benign"): Investigation {
  return {
    ...inv,
    status: "concluded",
    conclusion: {
      verdict,
      confidence: 0.9,
      severity: "HIGH",
      summary: "seeded",
      mitre: [],
      keyFindings: [],
      iocs: [],
      recommendedActions: [],
      openQuestions: [],
      producedBy: { model: "offline", offline: true },
      createdAt: inv.createdAt,
    },
  };
}

/** An embedder that answers with fixed vectors and records what it was asked. */
function recordingEmbedder(vector: number[] = QUERY) {
  const requests: EmbedRequest[] = [];
  return {
    requests,
    embed: async (request: EmbedRequest) => {
      requests.push(structuredClone(request));
      return request.texts.map(() => vector);
    },
  };
}

interface Found {
  id: string;
  relatedBy: string[];
  verdict?: string;
  status?: string;
  similarity?: number;
  category: string;
}

describe("related_findings on the emulator", () => {
  let db: Firestore;
  let store: FirestoreInvestigationStore;
  let embeddings: FirestoreFindingEmbeddings;
  const seeded: Record<string, Investigation> = {};

  before(async () => {
    await ensureEmulators();
    db = createFirestore({ projectId: uniqueProjectId("related-tool") });
    store = new FirestoreInvestigationStore(db);
    embeddings = new FirestoreFindingEmbeddings(db, { space: "test-space" });
    Object.assign(seeded, {
      sameResource: concluded(
        buildInvestigation({
          resourceName: VM,
          principal: "bob@example.com",
          iocValues: ["192.0.2.50"],
          createdAt: at(1),
        }),
        "true_positive",
      ),
      samePrincipal: buildInvestigation({
        resourceName: other(1),
        principal: ALICE,
        iocValues: ["192.0.2.51"],
        createdAt: at(2),
      }),
      sharedIoc: concluded(
        buildInvestigation({
          resourceName: other(2),
          principal: "carol@example.com",
          iocValues: ["198.51.100.1", "203.0.113.7"],
          createdAt: at(3),
        }),
        "benign",
      ),
      sharedMember: buildInvestigation({
        resourceName: other(3),
        iocValues: ["mallory@example.com"],
        createdAt: at(4),
      }),
      unrelated: buildInvestigation({
        resourceName: other(4),
        principal: "dave@example.com",
        iocValues: ["192.0.2.99"],
        createdAt: at(5),
      }),
      current: buildInvestigation({
        resourceName: VM,
        principal: ALICE,
        iocValues: ["203.0.113.7", ALICE, "mallory@example.com"],
        createdAt: at(9),
      }),
    });
    for (const inv of Object.values(seeded)) await store.create(inv, []);
    const meta = (inv: Investigation) => ({
      category: inv.finding.category,
      resource: inv.finding.resource.name,
      ...(inv.conclusion ? { verdict: inv.conclusion.verdict } : {}),
      createdAt: inv.createdAt,
    });
    await embeddings.upsert(seeded.current!.id, QUERY, meta(seeded.current!));
    await embeddings.upsert(seeded.sameResource!.id, unitWithSimilarity(0.88, 1), meta(seeded.sameResource!));
    await embeddings.upsert(seeded.unrelated!.id, unitWithSimilarity(0.5, 2), meta(seeded.unrelated!));
    await embeddings.upsert(SIMILAR_ID, unitWithSimilarity(0.93, 3), {
      category: "Persistence: IAM Anomalous Grant",
      resource: other(7),
      verdict: "true_positive",
      createdAt: at(0),
    });
  });
  after(async () => {
    await db.terminate();
  });

  const ctx = () => ({
    investigationId: seeded.current!.id,
    finding: seeded.current!.finding,
    logger: silentLogger,
  });
  const tool = (
    embedder = recordingEmbedder(),
    store_: Pick<FirestoreInvestigationStore, "findRelated"> = store,
    emb: FindingEmbeddings = embeddings,
  ) => createRelatedFindingsTool({ store: store_, embeddings: emb, embedder, minSimilarity: 0.8 });
  const run = async (input: JsonObject, t = tool()) => {
    const output = await t.run(input, ctx());
    const data = output.data as unknown as { findings: Found[]; warnings?: string[]; searched: string[] };
    return { output, data, ids: data.findings.map((f) => f.id) };
  };

  it("by resource: the earlier investigation of the same resource, with its verdict", async () => {
    const { data, ids } = await run({ by: ["resource"] });
    assert.deepEqual(ids, [seeded.sameResource!.id]);
    assert.deepEqual(data.findings[0]!.relatedBy, ["same resource"]);
    assert.equal(data.findings[0]!.verdict, "true_positive");
    assert.equal(data.findings[0]!.status, undefined, "concluded ones carry no status");
  });

  it("by principal: the acting principal's other investigations, still open ones marked", async () => {
    const { data, ids } = await run({ by: ["principal"] });
    assert.deepEqual(ids, [seeded.samePrincipal!.id]);
    assert.deepEqual(data.findings[0]!.relatedBy, [`same principal ${ALICE}`]);
    assert.equal(data.findings[0]!.status, "queued");
  });

  it("by IOC: any of the finding's IOCs, the IAM member included, newest first", async () => {
    const { data, ids } = await run({ by: ["ioc"] });
    assert.deepEqual(ids, [seeded.sharedMember!.id, seeded.sharedIoc!.id]);
    assert.deepEqual(
      data.findings.map((f) => f.relatedBy),
      [["shares IOC mallory@example.com"], ["shares IOC 203.0.113.7"]],
    );
  });

  it("by similarity: known vectors above the threshold, the current investigation never", async () => {
    const embedder = recordingEmbedder();
    const { data, ids } = await run({ by: ["similar"] }, tool(embedder));
    assert.deepEqual(
      ids,
      [SIMILAR_ID, seeded.sameResource!.id],
      "0.93 then 0.88; 0.5 is below 0.8; self is excluded",
    );
    assert.deepEqual(
      data.findings.map((f) => f.similarity),
      [0.93, 0.88],
    );
    assert.equal(data.findings[0]!.verdict, "true_positive");
    assert.deepEqual(data.findings[0]!.relatedBy, ["similar finding (cosine similarity 0.93)"]);
    assert.equal(embedder.requests.length, 1);
    assert.equal(embedder.requests[0]!.task, "RETRIEVAL_QUERY");
    assert.equal(embedder.requests[0]!.dimensions, 768);
    assert.deepEqual(embedder.requests[0]!.texts, [findingEmbeddingText(seeded.current!.finding)]);
  });

  it("everything at once: linked investigations first, reasons merged, bounded by limit", async () => {
    const { data, ids, output } = await run({});
    assert.ok(!ids.includes(seeded.current!.id));
    assert.ok(!ids.includes(seeded.unrelated!.id));
    assert.deepEqual(ids.slice(0, 1), [seeded.sameResource!.id], "linked and similar ranks first");
    assert.deepEqual(data.findings[0]!.relatedBy, [
      "same resource",
      "similar finding (cosine similarity 0.88)",
    ]);
    assert.deepEqual(
      new Set(ids.slice(1, 4)),
      new Set([seeded.samePrincipal!.id, seeded.sharedIoc!.id, seeded.sharedMember!.id]),
    );
    assert.equal(ids.at(-1), SIMILAR_ID, "only similar comes last");
    assert.equal(ids.length, 5);
    assert.match(
      output.summary,
      /5 other investigation\(s\) related \(4 by resource, principal or IOC; 1 only similar\)/,
    );

    const limited = await run({ limit: 2 });
    assert.equal(limited.ids.length, 2);
    assert.equal(limited.ids[0], seeded.sameResource!.id);
  });

  it("never returns the current investigation, even when a store does", async () => {
    const leaky: Pick<FirestoreInvestigationStore, "findRelated"> = {
      findRelated: async (query) => [
        seeded.current!,
        ...(await store.findRelated({ ...query, excludeId: undefined })),
      ],
    };
    const leakyEmbeddings: FindingEmbeddings = {
      upsert: async () => {},
      nearest: async () => [
        {
          id: seeded.current!.id,
          category: "x",
          resource: VM,
          createdAt: at(9),
          similarity: 1,
        },
      ],
    };
    const { ids } = await run({}, tool(recordingEmbedder(), leaky, leakyEmbeddings));
    assert.ok(ids.length > 0);
    assert.ok(!ids.includes(seeded.current!.id));
  });

  it("a failing similarity search leaves the exact links and says what failed", async () => {
    const broken: FindingEmbeddings = {
      upsert: async () => {},
      nearest: async () => {
        throw new StorageError("Firestore find nearest failed: UNAVAILABLE", true);
      },
    };
    const { output, data, ids } = await run({}, tool(recordingEmbedder(), store, broken));
    assert.equal(output.ok, true);
    assert.equal(ids.length, 4);
    assert.deepEqual(data.warnings, ["similar lookup failed: Firestore find nearest failed: UNAVAILABLE"]);
    await assert.rejects(
      run({ by: ["similar"] }, tool(recordingEmbedder(), store, broken)),
      (error: unknown) => {
        assert.equal((error as StorageError).retryable, true);
        return true;
      },
    );
  });

  it("indexFindingEmbedding stores the finding as a document with its verdict", async () => {
    const embedder = recordingEmbedder(unitWithSimilarity(0.99, 9));
    const inv = concluded(buildInvestigation({ resourceName: other(8), createdAt: at(10) }), "benign");
    await indexFindingEmbedding({ embeddings, embedder }, inv);
    assert.equal(embedder.requests[0]!.task, "RETRIEVAL_DOCUMENT");
    assert.deepEqual(embedder.requests[0]!.texts, [findingEmbeddingText(inv.finding)]);
    const found = await embeddings.nearest(QUERY, {
      limit: 1,
      minSimilarity: 0.98,
      excludeId: seeded.current!.id,
    });
    assert.deepEqual(
      found.map((f) => [f.id, f.verdict, f.resource]),
      [[inv.id, "benign", other(8)]],
    );
  });

  it("a held draft verdict (needs_human) is not indexed, nor offered as a related finding's verdict", async () => {
    const embedder = recordingEmbedder(unitWithSimilarity(0.995, 11));
    const drafted = concluded(buildInvestigation({ resourceName: VM, createdAt: at(11) }), "benign");
    const held: Investigation = { ...drafted, status: "needs_human", reason: "threat intel disagrees" };
    await store.create(held, []);
    await indexFindingEmbedding({ embeddings, embedder }, held);
    const stored = await embeddings.nearest(unitWithSimilarity(0.995, 11), { limit: 1, minSimilarity: 0.99 });
    assert.deepEqual(
      stored.map((f) => [f.id, f.verdict]),
      [[held.id, undefined]],
    );
    const { data } = await run({ by: ["resource"] });
    const listed = data.findings.find((f) => f.id === held.id);
    assert.ok(listed, "still listed as related, by resource");
    assert.equal(listed.verdict, undefined);
    assert.equal(listed.status, "needs_human");
  });

  it("registers with a Gemini-safe schema and refuses bad arguments through the registry", async () => {
    const registry = createToolRegistry([tool()]);
    const bad = await registry.run("related_findings", { by: ["nearby"] }, ctx());
    assert.equal(bad.ok, false);
    const tooMany = await registry.run("related_findings", { limit: 500 }, ctx());
    assert.equal(tooMany.ok, false);
    const good = await registry.run("related_findings", { by: ["resource"], limit: 1 }, ctx());
    assert.equal(good.ok, true);
  });
});
