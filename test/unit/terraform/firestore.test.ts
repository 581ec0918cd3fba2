// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions, not JS templates.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { FINDING_EMBEDDING_INDEX } from "../../../functions/src/adapters/firestore/finding-embeddings.js";
import { INVESTIGATION_INDEXES } from "../../../functions/src/adapters/firestore/indexes.js";
import {
  MEMORY_SESSIONS,
  MEMORY_VECTOR_INDEX,
} from "../../../functions/src/adapters/firestore/memory-store.js";
import {
  COLLECTIONS,
  EXPIRE_AT_FIELD,
  TTL_COLLECTIONS,
} from "../../../functions/src/adapters/firestore/paths.js";
import {
  arr,
  blocks,
  loadTerraform,
  local,
  obj,
  REPO_ROOT,
  resource,
  str,
  strings,
  type Terraform,
} from "./hcl.js";

const tf: Terraform = await loadTerraform();

/** The composite indexes the code's queries need, as collection then "field:ORDER|CONTAINS". */
const EXPECTED_COMPOSITE: readonly (readonly string[])[] = INVESTIGATION_INDEXES.map((index) => [
  index.collectionGroup,
  ...index.fields.map((f) => `${f.fieldPath}:${"order" in f ? f.order : f.arrayConfig}`),
]);

/**
 * Vector indexes: collection, equality-filter prefix, vector field, dimension, from the constants
 * next to the findNearest queries that need them (the emulator runs those queries without any).
 */
const EXPECTED_VECTOR: readonly {
  collection: string;
  prefix: readonly string[];
  field: string;
  dim: number;
}[] = [FINDING_EMBEDDING_INDEX, MEMORY_VECTOR_INDEX].map((index) => ({
  collection: index.collectionGroup,
  prefix: [...index.prefixFields],
  field: index.vectorField,
  dim: index.dimension,
}));

function compositeIndexes(): string[][] {
  return Object.entries(obj(local(tf, "firestore_composite_indexes"), "composite indexes")).map(
    ([key, value]) => {
      const index = obj(value, key);
      const fields = arr(index.fields, `${key}.fields`).map((f, i) => {
        const field = obj(f, `${key}.fields[${i}]`);
        const mode = field.order ?? field.array_config;
        assert.ok((field.order === null) !== (field.array_config === null), `${key}: order xor array_config`);
        return `${str(field.field_path, "field_path")}:${str(mode, "mode")}`;
      });
      return [str(index.collection, `${key}.collection`), ...fields];
    },
  );
}

const canonical = (rows: readonly (readonly string[])[]): string[] => rows.map((r) => r.join(" ")).sort();

test("the database is a native-mode Firestore database named by a variable", () => {
  const db = resource(tf, "google_firestore_database.ferret");
  assert.equal(db.type, "FIRESTORE_NATIVE");
  assert.equal(db.name, "${var.firestore_database}");
  assert.ok(tf.variables.has("firestore_database"));
});

test("composite indexes are exactly INVESTIGATION_INDEXES from the Firestore adapter", () => {
  assert.ok(EXPECTED_COMPOSITE.length > 0, "INVESTIGATION_INDEXES is not empty");
  assert.deepEqual(canonical(compositeIndexes()), canonical(EXPECTED_COMPOSITE));
  const r = resource(tf, "google_firestore_index.composite");
  assert.equal(r.for_each, "${local.firestore_composite_indexes}");
  assert.equal(r.database, "${google_firestore_database.ferret.name}");
  assert.equal(r.collection, "${each.value.collection}");
  const dyn = blocks(obj(r.dynamic, "dynamic"), "fields", "dynamic");
  assert.equal(dyn.length, 1);
  assert.equal(dyn[0]?.for_each, "${each.value.fields}");
});

test("vector indexes: flat, 768-dimensional, exactly the ones the adapters' findNearest queries need", () => {
  // Both queries filter before findNearest; without the prefix field production refuses them.
  assert.deepEqual(FINDING_EMBEDDING_INDEX.prefixFields, ["space"]);
  assert.deepEqual(MEMORY_VECTOR_INDEX.prefixFields, ["scope", "embeddingSpace"]);
  const declared = Object.entries(obj(local(tf, "firestore_vector_indexes"), "vector indexes")).map(
    ([key, v]) => {
      const index = obj(v, key);
      return {
        collection: str(index.collection, `${key}.collection`),
        prefix: strings(index.prefix_fields, `${key}.prefix_fields`),
        field: str(index.vector_field, `${key}.vector_field`),
        dim: Number(index.dimension),
      };
    },
  );
  const byCollection = (a: { collection: string }, b: { collection: string }): number =>
    a.collection.localeCompare(b.collection);
  assert.deepEqual(declared.sort(byCollection), [...EXPECTED_VECTOR].sort(byCollection));

  const r = resource(tf, "google_firestore_index.vector");
  assert.equal(r.for_each, "${local.firestore_vector_indexes}");
  const fields = blocks(r, "fields", "vector index");
  const last = fields.at(-1);
  assert.ok(last, "vector index has fields");
  assert.equal(last.field_path, "${each.value.vector_field}", "the vector field comes last");
  const [config] = blocks(last, "vector_config", "vector field");
  assert.ok(config, "vector_config");
  assert.equal(config.dimension, "${each.value.dimension}");
  assert.equal(blocks(config, "flat", "vector_config").length, 1, "flat vector index");
});

test("docs/deploy.md gives the equivalent gcloud command for every index", () => {
  const doc = readFileSync(join(REPO_ROOT, "docs", "deploy.md"), "utf8");
  const commands = doc
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .filter((line) => line.includes("gcloud firestore indexes composite create"));
  const fieldConfigs = (cmd: string): string[] =>
    [...cmd.matchAll(/--field-config[= ]'?field-path=([^,\s']+),([^\s]+?)'?(?=\s|$)/g)].map(
      (m) => `${m[1]}:${m[2]}`,
    );
  const documented = commands.map((cmd) => {
    const collection = /--collection-group[= ](\S+)/.exec(cmd)?.[1] ?? "";
    return [collection, ...fieldConfigs(cmd)];
  });
  const expected = [
    ...EXPECTED_COMPOSITE.map(([collection, ...fields]) => [
      collection ?? "",
      ...fields.map((f) => {
        const [path, mode] = f.split(":");
        return mode === "CONTAINS" ? `${path}:array-config=contains` : `${path}:order=${mode?.toLowerCase()}`;
      }),
    ]),
    ...EXPECTED_VECTOR.map((v) => [
      v.collection,
      ...v.prefix.map((p) => `${p}:order=ascending`),
      `${v.field}:vector-config={"dimension":"${v.dim}","flat":"{}"}`,
    ]),
  ];
  assert.deepEqual(canonical(documented), canonical(expected));
});

test("once-only markers expire: a TTL policy on expireAt for each of TTL_COLLECTIONS", () => {
  assert.deepEqual([...TTL_COLLECTIONS].sort(), [COLLECTIONS.claims, MEMORY_SESSIONS].sort());
  const field = resource(tf, "google_firestore_field.marker_ttl");
  assert.equal(field.for_each, `\${toset(${JSON.stringify([...TTL_COLLECTIONS])})}`.replace(/,/g, ", "));
  assert.equal(field.collection, "${each.key}");
  assert.equal(field.field, EXPIRE_AT_FIELD);
  assert.equal(field.database, "${google_firestore_database.ferret.name}");
  assert.equal(blocks(field, "ttl_config", "marker_ttl").length, 1, "ttl_config");
});
