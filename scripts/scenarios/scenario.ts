import { type Expected, ExpectedSchema } from "./expected.js";
import type { LogBook } from "./log-book.js";
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

/** The files every scenario writes: notification, intel, expected verdict and the logs. */
export function scenarioFiles(parts: {
  notification: unknown;
  intel: { toJson(): string };
  expected: Expected;
  logs: LogBook;
}): Map<string, string> {
  const files = new Map<string, string>([
    ["notification.json", json(parts.notification)],
    ["intel/bundle.json", parts.intel.toJson()],
    ["expected.json", json(ExpectedSchema.parse(parts.expected))],
  ]);
  for (const [name, content] of parts.logs.files()) files.set(`logs/${name}`, content);
  return files;
}
