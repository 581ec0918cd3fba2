import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { openDuckDbWarehouse } from "../../functions/src/adapters/duckdb/warehouse.js";
import { askStepExecutor } from "../../functions/src/agent/step-executor.js";
import { investigationScanBudget } from "../../functions/src/app/scan-budget.js";
import { DeadlineExceededError } from "../../functions/src/domain/errors.js";
import { normalizeNotification, parseNotification } from "../../functions/src/domain/finding/finding.js";
import type { Investigation } from "../../functions/src/domain/investigation.js";
import type { Plan, Step } from "../../functions/src/domain/plan.js";
import { LOG_ANALYST_TOOLS } from "../../functions/src/log-analyst/tool-names.js";
import type {
  GenerateRequest,
  GenerateResponse,
  Model,
  ToolDeclaration,
} from "../../functions/src/model/port.js";
import { silentLogger } from "../../functions/src/platform/logger.js";
import { fromRoot } from "../../functions/src/platform/paths.js";
import type { Transition } from "../../functions/src/ports/investigation-store.js";
import type { LogWarehouse, QueryRequest, QueryResult } from "../../functions/src/ports/log-warehouse.js";
import { loadRunbooks } from "../../functions/src/sql/runbooks.js";
import { createLogAnalysisTool } from "../../functions/src/tools/log-analysis.js";
import { createLogQueryTool } from "../../functions/src/tools/log-query.js";
import type { ToolContext, ToolOutput } from "../../functions/src/tools/port.js";
import { createToolRegistry } from "../../functions/src/tools/registry.js";
import { ToolBox, type ToolboxRegistry } from "../../functions/src/tools/toolbox.js";
import { ScriptedModel } from "../../test/helpers/scripted-model.js";

/**
 * Budgets that stop work, measured in process with scripted models (no emulators): what an
 * abandoned step still does after its deadline, what one turn of many log_analysis calls
 * spends, and how far an investigation's BigQuery scans go. Each figure is taken twice: with
 * the budget, and without it (the code path as it was before the budget existed).
 */
export interface BudgetsSection {
  deadline: { withSignal: DeadlineRun; withoutSignal: DeadlineRun };
  fanOut: { capped: FanOutRun; uncapped: FanOutRun };
  scan: { budgeted: ScanRun; unbudgeted: ScanRun };
}
export interface DeadlineRun {
  modelCallsBefore: number;
  modelCallsAfter: number;
  toolRunsAfter: number;
}
export interface FanOutRun {
  toolCallsAsked: number;
  toolCallsRun: number;
  modelCalls: number;
  tokens: number;
}
export interface ScanRun {
  queriesAsked: number;
  queriesRun: number;
  bytesScanned: number;
  budgetBytes: number;
}

const CRYPTO = "examples/scenarios/cryptomining";
const finding = normalizeNotification(
  parseNotification(JSON.parse(readFileSync(fromRoot(`${CRYPTO}/notification.json`), "utf8"))),
);
const stepOf = (tools: string[]): Step => ({
  id: "budget-step",
  description: "Find what the VM connected to",
  tools,
  expected: "connections",
  dependsOn: [],
  status: "pending",
  addedInRevision: 0,
});
const planOf = (step: Step): Plan => ({
  objective: "Did the VM mine?",
  successCriteria: ["pool traffic confirmed or ruled out"],
  constraints: [],
  steps: [step],
  revision: 0,
});

/** A provider that ignores abort signals: every answer takes `ms` and asks for one more tool call. */
class DeafModel implements Model {
  readonly name = "deaf";
  readonly offline = false;
  readonly calls: number[] = [];
  constructor(private readonly ms: number) {}
  async generate(_request: GenerateRequest): Promise<GenerateResponse> {
    this.calls.push(performance.now());
    await sleep(this.ms);
    return {
      toolCalls: [{ id: `c${this.calls.length}`, name: "slow_tool", args: {} }],
      usage: { llmCalls: 1, inputTokens: 100, outputTokens: 10 },
      model: this.name,
    };
  }
  async embed(): Promise<number[][]> {
    return [];
  }
}

class SlowRegistry implements ToolboxRegistry {
  readonly runs: number[] = [];
  names() {
    return ["slow_tool"];
  }
  declarations(): ToolDeclaration[] {
    return [{ name: "slow_tool", description: "slow", parameters: { type: "object", properties: {} } }];
  }
  async run(): Promise<ToolOutput> {
    this.runs.push(performance.now());
    await sleep(20);
    return { ok: true, summary: "done", data: null };
  }
}

/** A step whose deadline fires at `deadlineMs`, as app/step-executor.ts races it; `bind` = pass the signal. */
async function deadlineRun(bind: boolean, deadlineMs: number): Promise<DeadlineRun> {
  const model = new DeafModel(50);
  const registry = new SlowRegistry();
  const controller = new AbortController();
  const step = stepOf(["slow_tool"]);
  const work = askStepExecutor({
    investigationId: "inv-bench",
    finding,
    plan: planOf(step),
    step,
    priorResults: [],
    model,
    toolbox: new ToolBox(registry, () => true),
    maxIterations: 20,
    logger: silentLogger,
    now: () => new Date(),
    ...(bind ? { signal: controller.signal } : {}),
  }).catch(() => undefined);
  await sleep(deadlineMs);
  const firedAt = performance.now();
  controller.abort(new DeadlineExceededError("bench step deadline"));
  // The step is abandoned here; whatever it still does until it ends by itself is waste.
  await work;
  return {
    modelCallsBefore: model.calls.filter((t) => t <= firedAt).length,
    modelCallsAfter: model.calls.filter((t) => t > firedAt).length,
    toolRunsAfter: registry.runs.filter((t) => t > firedAt).length,
  };
}

/** One executor turn asking for `asked` log_analysis calls whose sub-agents never finish on their own. */
async function fanOutRun(warehouse: LogWarehouse, cap: boolean, asked: number): Promise<FanOutRun> {
  const analystRound = () => ({
    toolCalls: [{ name: LOG_ANALYST_TOOLS.listTables }],
    usage: { inputTokens: 900, outputTokens: 100 },
  });
  const analyst = new ScriptedModel({ log_analyst: Array.from({ length: asked * 20 }, () => analystRound) });
  const tool = await createLogAnalysisTool({ warehouse, runbooks: loadRunbooks(), model: analyst });
  const registry = createToolRegistry([tool]);
  const narrow: ToolboxRegistry = {
    names: () => registry.names(),
    declarations: () => registry.declarations(),
    run: (name, args, ctx: ToolContext) => registry.run(name, args, ctx),
  };
  const executor = new ScriptedModel({
    executor: [
      {
        toolCalls: Array.from({ length: asked }, (_, k) => ({
          name: "log_analysis",
          args: { request: `Which hosts did the VM reach? (${k})` },
        })),
        usage: { inputTokens: 1_500, outputTokens: 500 },
      },
      { json: { outcome: "answered", summary: "done", facts: [], iocs: [] } },
    ],
  });
  const step = stepOf(["log_analysis"]);
  await askStepExecutor({
    investigationId: "inv-bench",
    finding,
    plan: planOf(step),
    step,
    priorResults: [],
    model: executor,
    toolbox: new ToolBox(narrow, () => true),
    maxIterations: 1,
    logger: silentLogger,
    now: () => new Date(),
    // Budgeted: at most 4 calls per turn, each sharing what is left of a 20 000-token step
    // allowance. Unbudgeted (as before): every call runs, each sub-agent to its round cap.
    ...(cap ? { maxToolCallsPerTurn: 4, tokenAllowance: 20_000 } : {}),
  });
  return {
    toolCallsAsked: asked,
    toolCallsRun: analyst.calls.filter(
      (c) => c.request.brief.role === "log_analyst" && c.request.brief.iteration === 1,
    ).length,
    modelCalls: executor.calls.length + analyst.calls.length,
    tokens: [...executor.calls, ...analyst.calls].reduce(
      (sum, c) => sum + (c.response ? c.response.usage.inputTokens + c.response.usage.outputTokens : 0),
      0,
    ),
  };
}

/** A BigQuery-like warehouse reporting a fixed scan per query. */
function meteredWarehouse(bytes: number, runs: QueryRequest[]): LogWarehouse {
  return {
    dialect: "bigquery",
    listTables: async () => [],
    describeTable: async (name) => ({ name, description: "", columns: [] }),
    query: async (request): Promise<QueryResult> => {
      runs.push(request);
      return {
        columns: ["n"],
        rows: [{ n: 1 }],
        totalRows: 1,
        truncated: false,
        bytesProcessed: bytes,
        executedSql: request.sql,
      };
    },
    close: async () => {},
  };
}

async function scanRun(budgeted: boolean, queries: number): Promise<ScanRun> {
  const GiB = 1024 ** 3;
  const budgetBytes = 50 * GiB;
  let doc = { counters: { bytesScanned: 0 } } as unknown as Investigation;
  const store = {
    update: async (_id: string, change: (current: Investigation) => Transition | undefined) => {
      const t = change(doc);
      if (t) doc = t.investigation;
      return { investigation: doc, events: [] };
    },
  };
  const runs: QueryRequest[] = [];
  const registry = createToolRegistry([
    createLogQueryTool({ warehouse: meteredWarehouse(7 * GiB, runs), runbooks: loadRunbooks() }),
  ]);
  const ctx: ToolContext = {
    investigationId: "inv-bench",
    finding,
    logger: silentLogger,
    ...(budgeted
      ? { scanBudget: investigationScanBudget(store, "inv-bench", { budgetBytes, worstCaseBytes: 10 * GiB }) }
      : {}),
  };
  for (let k = 0; k < queries; k++) {
    await registry.run(
      "log_query",
      {
        sql: `SELECT ${k} AS n FROM compute_googleapis_com_vpc_flows WHERE timestamp BETWEEN @start AND @end`,
        params: { start: "2025-06-11T00:00:00Z", end: "2025-06-11T04:00:00Z" },
      },
      ctx,
    );
  }
  return { queriesAsked: queries, queriesRun: runs.length, bytesScanned: runs.length * 7 * GiB, budgetBytes };
}

export async function measureBudgets(): Promise<BudgetsSection> {
  const warehouse = await openDuckDbWarehouse({ dir: fromRoot(`${CRYPTO}/logs`) });
  try {
    return {
      deadline: { withSignal: await deadlineRun(true, 300), withoutSignal: await deadlineRun(false, 300) },
      fanOut: { capped: await fanOutRun(warehouse, true, 8), uncapped: await fanOutRun(warehouse, false, 8) },
      scan: { budgeted: await scanRun(true, 12), unbudgeted: await scanRun(false, 12) },
    };
  } finally {
    await warehouse.close();
  }
}
