/**
 * The Firestore indexes Terraform declares, checked against the queries the code actually
 * issues. The emulator runs any query without an index, so this records every query the
 * adapters send (their filters, orders and vector search) while they run against the emulator,
 * and requires a declared index for each one production would refuse without one.
 *
 * The recording reads the Firestore client's internal query options (_queryOptions, the
 * VectorQuery's _query/_options): there is no public accessor, and a client upgrade that moves
 * them fails this test loudly rather than passing it.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import firestore from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreFindingEmbeddings } from "../../../functions/src/adapters/firestore/finding-embeddings.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { FirestoreMemoryStore } from "../../../functions/src/adapters/firestore/memory-store.js";
import { LOG_ANALYST_SCOPE } from "../../../functions/src/memory/memory.js";
import { EMBEDDING_DIMENSIONS } from "../../../functions/src/model/port.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { loadTerraform, local, obj } from "../../unit/terraform/hcl.js";
import { defaultVariables, Evaluator } from "./terraform-env.js";

interface Recorded {
  collection: string;
  /** Equality filters (any order in an index prefix). */
  equals: string[];
  /** array-contains filters. */
  contains: string[];
  /** Inequality filters and orders, in the order the query applies them: "field:ASCENDING". */
  ordered: string[];
  vector?: string;
}

interface InternalFilter {
  field?: { formattedName?: string };
  op?: string;
}
interface InternalOptions {
  collectionId: string;
  filters: InternalFilter[];
  fieldOrders: { field: { formattedName: string }; direction: string }[];
}

const recorded: Recorded[] = [];

function internals(query: unknown, what: string): InternalOptions {
  const options = (query as { _queryOptions?: InternalOptions })._queryOptions;
  assert.ok(options && Array.isArray(options.filters), `${what}: the client's query internals moved`);
  return options;
}

function describeQuery(query: unknown, vectorField?: string): Recorded {
  const options = internals(query, "query");
  const equals: string[] = [];
  const contains: string[] = [];
  const inequalities: string[] = [];
  for (const f of options.filters) {
    const field = f.field?.formattedName;
    assert.ok(field && f.op, "only field filters are expected");
    if (f.op === "EQUAL") equals.push(field);
    else if (f.op === "ARRAY_CONTAINS") contains.push(field);
    else inequalities.push(field);
  }
  const ordered = options.fieldOrders.map((o) => `${o.field.formattedName}:${o.direction}`);
  // An inequality field without an explicit order is ordered ascending, first.
  for (const field of inequalities)
    if (!ordered.some((o) => o.startsWith(`${field}:`))) ordered.unshift(`${field}:ASCENDING`);
  return {
    collection: options.collectionId,
    equals,
    contains,
    ordered,
    ...(vectorField ? { vector: vectorField } : {}),
  };
}

const { Query } = firestore;
const originalGet = Query.prototype.get;
let vectorPrototype: { get: (...args: unknown[]) => unknown } | undefined;
let originalVectorGet: ((...args: unknown[]) => unknown) | undefined;
const projectId = uniqueProjectId("parity-queries");
let db: firestore.Firestore;

before(async () => {
  await ensureEmulators();
  db = createFirestore({ projectId, databaseId: "ferret" });
  Query.prototype.get = function (this: firestore.Query) {
    recorded.push(describeQuery(this));
    return originalGet.call(this);
  } as typeof originalGet;
  const sample = db.collection("x").findNearest({
    vectorField: "v",
    queryVector: [1],
    limit: 1,
    distanceMeasure: "COSINE",
  });
  vectorPrototype = Object.getPrototypeOf(sample) as { get: (...args: unknown[]) => unknown };
  originalVectorGet = vectorPrototype.get;
  vectorPrototype.get = function (this: unknown, ...args: unknown[]) {
    const inner = this as { _query?: unknown; _options?: { vectorField?: unknown } };
    const field = inner._options?.vectorField;
    assert.ok(inner._query && field !== undefined, "the client's vector query internals moved");
    recorded.push(describeQuery(inner._query, typeof field === "string" ? field : String(field)));
    return originalVectorGet?.apply(this, args);
  };
});

after(async () => {
  Query.prototype.get = originalGet;
  if (vectorPrototype && originalVectorGet) vectorPrototype.get = originalVectorGet;
  await db?.terminate();
});

/** Declared indexes as "collection|field:MODE|…" (equality prefix fields are ASCENDING). */
async function declaredIndexes(): Promise<{
  composite: string[][];
  vector: { collection: string; prefix: string[]; field: string }[];
}> {
  const tf = await loadTerraform();
  const ev = new Evaluator(tf, defaultVariables(tf));
  const composite = Object.values(obj(local(tf, "firestore_composite_indexes"), "composite")).map((raw) => {
    const i = ev.value(raw, "index") as {
      collection: string;
      fields: { field_path: string; order: string | null; array_config: string | null }[];
    };
    return [i.collection, ...i.fields.map((f) => `${f.field_path}:${f.order ?? f.array_config}`)];
  });
  const vector = Object.values(obj(local(tf, "firestore_vector_indexes"), "vector")).map((raw) => {
    const i = ev.value(raw, "index") as { collection: string; prefix_fields: string[]; vector_field: string };
    return { collection: i.collection, prefix: i.prefix_fields, field: i.vector_field };
  });
  return { composite, vector };
}

/** Whether production needs a composite index for the query, and whether one declared serves it. */
function servedBy(q: Recorded, composite: string[][]): boolean {
  const fields = new Set([...q.equals, ...q.contains, ...q.ordered.map((o) => o.split(":")[0])]);
  if (fields.size <= 1) return true; // single-field indexes are automatic
  return composite.some(([collection, ...index]) => {
    if (collection !== q.collection) return false;
    const prefix = index.slice(0, q.equals.length + q.contains.length);
    const rest = index.slice(prefix.length);
    const wantPrefix = [...q.equals.map((f) => `${f}:ASCENDING`), ...q.contains.map((f) => `${f}:CONTAINS`)];
    return (
      prefix.length === wantPrefix.length &&
      wantPrefix.every(
        (p) => prefix.includes(p) || prefix.includes(p.replace(":ASCENDING", ":DESCENDING")),
      ) &&
      rest.join("|") === q.ordered.join("|")
    );
  });
}

test("every query the adapters issue has the index production needs", async () => {
  const store = new FirestoreInvestigationStore(db);
  const unit = Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => (i === 0 ? 1 : 0));
  await store.findRelated({ resourceName: "//r", principal: "p@example.com", iocValue: "1.2.3.4", limit: 5 });
  await store.listStalled({ updatedBefore: new Date().toISOString(), limit: 5 });
  await store.listChangedSince({ status: "needs_human", updatedAfter: new Date(0).toISOString(), limit: 5 });
  await new FirestoreFindingEmbeddings(db, { space: "offline-hash-v1" }).nearest(unit, {
    limit: 3,
    minSimilarity: 0.5,
  });
  await new FirestoreMemoryStore(db).search({
    scope: LOG_ANALYST_SCOPE,
    embeddingSpace: "offline-hash-v1",
    vector: unit,
    minSimilarity: 0.8,
    limit: 3,
  });

  assert.ok(recorded.length >= 6, `queries were recorded (${recorded.length})`);
  const { composite, vector } = await declaredIndexes();
  const unserved: string[] = [];
  for (const q of recorded) {
    const shape = `${q.collection} ${JSON.stringify({ equals: q.equals, contains: q.contains, ordered: q.ordered, vector: q.vector })}`;
    if (q.vector) {
      const ok = vector.some(
        (v) =>
          v.collection === q.collection &&
          v.field === q.vector &&
          v.prefix.length === q.equals.length &&
          q.equals.every((f) => v.prefix.includes(f)),
      );
      if (!ok) unserved.push(`vector search ${shape}`);
    } else if (!servedBy(q, composite)) unserved.push(shape);
  }
  assert.deepEqual(unserved, [], "queries production would refuse for want of an index");
});
