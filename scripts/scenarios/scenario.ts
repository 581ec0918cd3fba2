import type { Rng } from "./prng.js";

/** One scenario: a seed and a builder that returns its files keyed by relative path. */
export interface ScenarioDefinition {
  name: string;
  seed: string;
  build(rng: Rng): Map<string, string>;
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
