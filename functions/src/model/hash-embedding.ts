import { EMBEDDING_DIMENSIONS } from "./port.js";

/**
 * A deterministic stand-in for a text embedding: feature hashing of lower-cased word
 * tokens into a unit vector. Texts that share words get a positive cosine similarity and
 * identical texts get exactly 1, so memory search behaves sensibly in tests and offline
 * runs, without pretending to understand meaning.
 */
export function hashEmbedding(text: string, dimensions: number = EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const tokens = text.toLowerCase().match(/[\p{L}\p{N}_.:/@-]+/gu) ?? [];
  for (const token of tokens) {
    const hash = fnv1a(token);
    const index = hash % dimensions;
    // The top bit picks the sign so unrelated tokens cancel out on average instead of piling up.
    vector[index] = (vector[index] ?? 0) + (hash & 0x80000000 ? -1 : 1);
  }
  const norm = Math.hypot(...vector);
  // An empty text still needs a valid unit vector: cosine distance is undefined for zero.
  if (norm === 0) return vector.map((_, i) => (i === 0 ? 1 : 0));
  return vector.map((v) => v / norm);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
