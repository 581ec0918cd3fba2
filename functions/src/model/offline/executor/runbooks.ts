import type { JsonObject } from "../../../domain/json.js";
import type { Intent } from "../intents.js";
import type { LogToolShape } from "./declarations.js";

/**
 * Which advertised runbook answers an intent. Filled in against functions/runbooks/ as
 * runbooks land; an intent without a runbook falls back to its own SQL.
 */
export function runbookCall(_shape: LogToolShape, _intent: Intent): JsonObject | undefined {
  return undefined;
}
