import assert from "node:assert/strict";
import { openDuckDbWarehouse } from "../../../functions/src/adapters/duckdb/warehouse.js";
import type { JsonObject, JsonValue } from "../../../functions/src/domain/json.js";
import type { LogAnalystSession } from "../../../functions/src/domain/log-analyst-session.js";
import type { GenerateRequest, Model, ToolResponse } from "../../../functions/src/model/port.js";
import type { LogWarehouse } from "../../../functions/src/ports/log-warehouse.js";
import { loadRunbooks } from "../../../functions/src/sql/runbooks.js";
import {
  createLogAnalysisTool,
  type LogAnalysisToolOptions,
} from "../../../functions/src/tools/log-analysis.js";
import type { ToolContext, ToolOutput } from "../../../functions/src/tools/port.js";
import { createToolRegistry, type ToolRegistry } from "../../../functions/src/tools/registry.js";
import { CRYPTO_LOGS, scenarioContext } from "../tools/context.js";

export { CRYPTO_LOGS };

/** The cryptomining finding (eventTime 2025-06-11T03:14:27.551Z) as a step's tool call would carry it. */
export function callContext(ids: { stepId?: string; toolCallId?: string } = {}): ToolContext {
  return {
    ...scenarioContext(),
    stepId: ids.stepId ?? "flows-remote",
    toolCallId: ids.toolCallId ?? "call-1",
  };
}

/** The default window: six hours before the finding's eventTime to one hour after, never the wall clock. */
export const DEFAULT_WINDOW = { start: "2025-06-10T21:14:27Z", end: "2025-06-11T04:14:27Z" };

export function openCryptoLogs(): Promise<LogWarehouse> {
  return openDuckDbWarehouse({ dir: CRYPTO_LOGS });
}

export interface Analyst {
  registry: ToolRegistry;
  sessions: LogAnalystSession[];
  run(args: JsonObject, ctx?: ToolContext): Promise<ToolOutput>;
}

/** `log_analysis` over the real DuckDB warehouse and runbooks, behind the real registry. */
export async function analyst(
  warehouse: LogWarehouse,
  model: Model,
  options: Partial<Omit<LogAnalysisToolOptions, "warehouse" | "runbooks" | "model">> = {},
): Promise<Analyst> {
  const sessions: LogAnalystSession[] = [];
  const tool = await createLogAnalysisTool({
    warehouse,
    runbooks: loadRunbooks(),
    model,
    publishSession: async (s) => {
      sessions.push(s);
    },
    now: () => new Date("2025-06-12T09:00:00.000Z"),
    ...options,
  });
  const registry = createToolRegistry([tool]);
  return { registry, sessions, run: (args, ctx) => registry.run("log_analysis", args, ctx ?? callContext()) };
}

/** The tool responses of the last tool turn the request carries. */
export function lastToolResponses(request: GenerateRequest): ToolResponse[] {
  const last = [...request.messages].reverse().find((m) => m.role === "tool");
  assert.ok(last && last.role === "tool", "the request carries a tool turn");
  return last.responses;
}

export function untrusted(response: ToolResponse): JsonObject {
  const data = response.response.untrusted_data;
  assert.ok(data !== null && typeof data === "object" && !Array.isArray(data), "tool data is an object");
  return data;
}

export function obj(value: JsonValue | undefined): JsonObject {
  assert.ok(value !== null && typeof value === "object" && !Array.isArray(value), "an object");
  return value;
}

export function rowsOf(data: JsonObject): JsonObject[] {
  assert.ok(Array.isArray(data.rows), "rows");
  return data.rows.map((r) => obj(r));
}

export const finalAnswer = (summary = "etl-worker-1 sent most traffic to 203.0.113.88 on 3333.") => ({
  json: {
    outcome: "answered",
    summary,
    facts: ["runbook vpc_flows_from_instance: 93 flows etl-worker-1 → 203.0.113.88:3333"],
    iocs: [{ type: "ip", value: "203.0.113.88", context: "pool" }],
  },
});
