import { cryptomining } from "./cryptomining.js";
import type { ScenarioDefinition } from "./scenario.js";

/** Every scenario the generator writes, in output order. */
export const SCENARIOS: readonly ScenarioDefinition[] = [cryptomining];
