import type { RuntimeNeeds } from "./compose.js";
import type { Runtime } from "./runtime.js";

/**
 * Which module serves each entry point and what its runtime builds, loaded on the
 * function's first request (index.ts). A function that reads no logs and runs no tools
 * builds no tool catalog, so its instance never opens the warehouse or lists its tables.
 */
const WITH_TOOLS: RuntimeNeeds = { tools: true };
const WITHOUT_TOOLS: RuntimeNeeds = { tools: false };

async function runtimeFor(needs: RuntimeNeeds): Promise<() => Promise<Runtime>> {
  const { getRuntime } = await import("./compose.js");
  return () => getRuntime(needs);
}

async function workflowFunction(
  name: "planner" | "stepExecutor" | "reflector" | "concluder" | "compressor" | "responder",
): Promise<unknown> {
  const m = await import("./http-functions.js");
  const operations = {
    planner: m.plannerOperation,
    stepExecutor: m.stepOperation,
    reflector: m.advanceOperation,
    concluder: m.finishOperation,
    compressor: m.compressorOperation,
    responder: m.responderOperation,
  } as const;
  const schema = m.HTTP_SCHEMAS[name];
  const operation = operations[name];
  // The compressor summarizes a step's history: a model, no tools.
  const runtime = await runtimeFor(name === "compressor" ? WITHOUT_TOOLS : WITH_TOOLS);
  return m.workflowHandler(name, schema as never, operation as never, runtime);
}

export const ENTRY_POINT_MODULES = {
  planner: () => workflowFunction("planner"),
  stepExecutor: () => workflowFunction("stepExecutor"),
  reflector: () => workflowFunction("reflector"),
  concluder: () => workflowFunction("concluder"),
  compressor: () => workflowFunction("compressor"),
  // Runs approved acting calls: the tool catalog (MCP servers, response actions).
  responder: () => workflowFunction("responder"),
  ingest: async () => (await import("./event-functions.js")).ingestFunction(await runtimeFor(WITHOUT_TOOLS)),
  memoryIntrospector: async () =>
    (await import("./event-functions.js")).memoryIntrospectorFunction(await runtimeFor(WITHOUT_TOOLS)),
  notifier: async () =>
    (await import("./event-functions.js")).notifierFunction(await runtimeFor(WITHOUT_TOOLS)),
  slackEvents: async () =>
    (await import("./analyst-functions.js")).slackEventsFunction(await runtimeFor(WITHOUT_TOOLS)),
  // Analyst actions may start a re-investigation's model work in-process: the full runtime.
  analystActions: async () =>
    (await import("./analyst-functions.js")).analystActionsFunction(await runtimeFor(WITH_TOOLS)),
} as const satisfies Record<string, () => Promise<unknown>>;

export type EntryPointModuleName = keyof typeof ENTRY_POINT_MODULES;
