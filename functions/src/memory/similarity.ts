import { InvalidInputError } from "../domain/errors.js";

/**
 * Similarity and distance, kept apart on purpose. ferret's setting is a cosine
 * *similarity* (1 = same direction, 0 = unrelated); Firestore's findNearest with
 * distanceMeasure COSINE filters on cosine *distance*, defined as 1 − similarity, and
 * keeps documents with distance ≤ distanceThreshold. So "similarity ≥ 0.8" is
 * "distanceThreshold 0.2". Passing 0.8 as the threshold (as the seed's code does) would
 * admit everything down to similarity 0.2.
 */
export function cosineDistanceThreshold(minSimilarity: number): number {
  if (!Number.isFinite(minSimilarity) || minSimilarity < 0 || minSimilarity > 1) {
    throw new InvalidInputError(`minimum cosine similarity must be within [0, 1], got ${minSimilarity}`);
  }
  return 1 - minSimilarity;
}

export function similarityFromCosineDistance(distance: number): number {
  return 1 - distance;
}

/** Cosine similarity of two vectors, for tests and for checking stored data offline. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new InvalidInputError(`vector lengths differ: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
