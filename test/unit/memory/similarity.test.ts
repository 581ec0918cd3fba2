import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../../functions/src/config/config.js";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import {
  cosineDistanceThreshold,
  cosineSimilarity,
  similarityFromCosineDistance,
} from "../../../functions/src/memory/similarity.js";
import { hashEmbedding } from "../../../functions/src/model/hash-embedding.js";

describe("similarity and Firestore's cosine distance", () => {
  it("the default setting, similarity 0.8, is a distance threshold of 0.2, not 0.8", () => {
    const config = loadConfig({ env: {} });
    assert.equal(config.memory.minSimilarity, 0.8);
    assert.equal(config.memory.maxRecalled, 32);
    assert.ok(Math.abs(cosineDistanceThreshold(config.memory.minSimilarity) - 0.2) < 1e-12);
    assert.equal(cosineDistanceThreshold(1), 0);
    assert.equal(cosineDistanceThreshold(0), 1);
  });

  it("converts back: distance d is similarity 1 − d", () => {
    assert.equal(similarityFromCosineDistance(0), 1);
    assert.ok(Math.abs(similarityFromCosineDistance(0.1) - 0.9) < 1e-12);
    assert.equal(similarityFromCosineDistance(1), 0);
  });

  it("refuses a similarity outside [0, 1] instead of searching with nonsense", () => {
    for (const bad of [-0.1, 1.1, Number.NaN])
      assert.throws(() => cosineDistanceThreshold(bad), InvalidInputError);
  });

  it("FERRET_MEMORY_MIN_SIMILARITY sets it, and values outside [0, 1] stop start-up", () => {
    assert.equal(loadConfig({ env: { FERRET_MEMORY_MIN_SIMILARITY: "0.85" } }).memory.minSimilarity, 0.85);
    assert.throws(
      () => loadConfig({ env: { FERRET_MEMORY_MIN_SIMILARITY: "1.5" } }),
      /memory\.minSimilarity|MIN_SIMILARITY/,
    );
  });

  it("cosineSimilarity of unit vectors at a chosen angle is its cosine", () => {
    const a = [1, 0, 0];
    const b = [0.8, 0.6, 0];
    assert.ok(Math.abs(cosineSimilarity(a, b) - 0.8) < 1e-12);
    assert.equal(cosineSimilarity(a, [0, 0, 0]), 0);
    assert.throws(() => cosineSimilarity(a, [1, 0]), InvalidInputError);
  });

  it("the offline hashed-token embedding: identical requests 1, shared words in between, none near 0", () => {
    const q = "Which principals called SetIamPolicy on project prod-1?";
    assert.ok(Math.abs(cosineSimilarity(hashEmbedding(q), hashEmbedding(q)) - 1) < 1e-12);
    const reworded = cosineSimilarity(
      hashEmbedding(q),
      hashEmbedding("Which principals called SetIamPolicy on project prod-2?"),
    );
    assert.ok(reworded > 0.8 && reworded < 1, `one word changed: ${reworded}`);
    const unrelated = cosineSimilarity(
      hashEmbedding(q),
      hashEmbedding("VPC flows from etl-worker-1 to 45.9.148.108"),
    );
    assert.ok(Math.abs(unrelated) < 0.3, `no shared words: ${unrelated}`);
  });
});
