import { readFileSync } from "node:fs";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { ToolContext } from "../../../functions/src/tools/port.js";

/** A tool context around the cryptomining scenario's finding. */
export function scenarioContext(): ToolContext {
  const notification = JSON.parse(readFileSync("examples/scenarios/cryptomining/notification.json", "utf8"));
  return {
    investigationId: "inv-test",
    finding: normalizeNotification(parseNotification(notification)),
    logger: silentLogger,
  };
}

export const CRYPTO_LOGS = "examples/scenarios/cryptomining/logs";
export const CRYPTO_BUNDLE = "examples/scenarios/cryptomining/intel/bundle.json";
export const WINDOW = { start: "2025-06-11T00:14:27Z", end: "2025-06-11T04:14:27Z" };
