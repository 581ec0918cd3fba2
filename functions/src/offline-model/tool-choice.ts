import { isActionTool } from "../domain/response-actions.js";
import { type IntentKind, toolFor } from "./intents.js";

/**
 * The registry may name its tools differently from the defaults (a log-analysis sub-agent,
 * another intel provider): fall back to a tool whose name says what it does.
 */
const FALLBACK: Record<ReturnType<typeof toolFor>, RegExp> = {
  log_query: /log|query|sql|bigquery|warehouse/i,
  threat_intel_lookup: /intel|reputation|ioc|indicator/i,
};

export function toolForIntent(kind: IntentKind, offered: readonly string[]): string | undefined {
  const preferred = toolFor(kind);
  if (offered.includes(preferred)) return preferred;
  return offered.find(
    (name) => FALLBACK[preferred].test(name) && name !== "log_tables" && !neverChosen(name),
  );
}

/**
 * Tools the playbooks never pick by name: an MCP server's tools (their names and answers are
 * the server's, which ferret does not trust to mean what they say) and the response actions,
 * which only respond.ts plans.
 */
function neverChosen(name: string): boolean {
  return name.startsWith("mcp.") || isActionTool(name);
}

/** The schema helper travels with every log step so the step executor can recover from an empty result. */
export function stepTools(kind: IntentKind, offered: readonly string[]): string[] | undefined {
  const primary = toolForIntent(kind, offered);
  if (!primary) return undefined;
  const helper =
    kind !== "intel" && offered.includes("log_tables") && primary !== "log_tables" ? ["log_tables"] : [];
  return [primary, ...helper];
}
