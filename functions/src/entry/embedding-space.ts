import type { Config } from "../config/config.js";
import type { Model } from "../model/port.js";

/**
 * The name of the vector space a model's embeddings live in. Documents record it, and
 * similarity search stays inside it, so switching the embedding model (or running the
 * offline model) never compares vectors from different models. Kept free of adapters:
 * the memory introspector imports it at cold start, before Firestore is loaded.
 */
export function embeddingSpace(config: Config, model: Pick<Model, "offline">): string {
  return model.offline ? "offline-hash-v1" : `gemini:${config.model.embeddingModel}`;
}
