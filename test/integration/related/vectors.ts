import { EMBEDDING_DIMENSIONS } from "../../../functions/src/model/port.js";

/**
 * A 768-d unit vector whose cosine similarity to `unit(0)` is exactly `similarity`: it
 * lies in the plane of the first two axes, at angle acos(similarity) from the first.
 * `axis` picks the second axis, so two vectors with the same similarity to the query can
 * still differ from each other.
 */
export function unitWithSimilarity(similarity: number, axis = 1): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  vector[0] = similarity;
  vector[axis] = Math.sqrt(Math.max(0, 1 - similarity * similarity));
  return vector;
}

export const QUERY = unitWithSimilarity(1);
