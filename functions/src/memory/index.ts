/** The memory module's public surface; see docs/memory.md. */
export { type IntrospectDeps, type IntrospectionReport, introspectSession } from "./introspect.js";
export {
  LOG_ANALYST_SCOPE,
  type Memory,
  type MemoryId,
  type MemoryScope,
  type RecalledMemory,
} from "./memory.js";
export { createRecall, type Recall, type RecallDeps, type RecallSettings } from "./recall.js";
export { cosineDistanceThreshold, similarityFromCosineDistance } from "./similarity.js";
export type { MemoryStore } from "./store.js";
