import type { RuntimeNeeds } from "./compose.js";
import type { Runtime } from "./runtime.js";

/**
 * Which module serves each entry point and what its runtime builds. index.ts registers every
 * entry point and loads a function's module on its first request; the module imports domain
 * code only. The runtime (compose.ts: Firestore, Pub/Sub, and whatever else the function's
 * needs name) is built on the first call of the handler, so no cloud SDK is part of a
 * function's cold import, and a function that reads no logs never opens the warehouse.
 */
export const ENTRY_POINT_NEEDS = {
  planner: { tools: true, chat: false },
  stepExecutor: { tools: true, chat: false },
  reflector: { tools: true, chat: false },
  concluder: { tools: true, chat: false },
  // The compressor summarizes a step's history: a model, no tools.
  compressor: { tools: false, chat: false },
  // The responder runs approved acting calls through the tool catalog; its notes go out as events.
  responder: { tools: true, chat: false },
  ingest: { tools: false, chat: false },
  memoryIntrospector: { tools: false, chat: false },
  notifier: { tools: false, chat: true },
  // The sweep marks stalled investigations and drains the governor's queue: no tools, no Slack.
  sweep: { tools: false, chat: false },
  slackEvents: { tools: false, chat: true },
  // Analyst actions may start a re-investigation's model work in-process: the full runtime.
  analystActions: { tools: true, chat: true },
} as const satisfies Record<string, RuntimeNeeds>;

export type EntryPointModuleName = keyof typeof ENTRY_POINT_NEEDS;

function runtimeFor(name: EntryPointModuleName): () => Promise<Runtime> {
  return async () => (await import("./compose.js")).getRuntime(ENTRY_POINT_NEEDS[name]);
}

/** Each workflow role's operation, loaded alone: a function does not import the other roles. */
const OPERATIONS = {
  planner: async () => (await import("./planner-operation.js")).plannerOperation,
  stepExecutor: async () => (await import("./step-executor-operation.js")).stepExecutorOperation,
  reflector: async () => (await import("./reflector-operation.js")).reflectorOperation,
  concluder: async () => (await import("./concluder-operation.js")).concluderOperation,
  compressor: async () => (await import("./compressor-operation.js")).compressorOperation,
  responder: async () => (await import("./responder-operation.js")).responderOperation,
} as const;

async function workflowFunction(name: keyof typeof OPERATIONS): Promise<unknown> {
  const [{ workflowHandler }, requests, operation] = await Promise.all([
    import("./workflow-handler.js"),
    import("./http-requests.js"),
    OPERATIONS[name](),
  ]);
  return workflowHandler(
    name,
    requests.WORKFLOW_REQUEST_SCHEMAS[name] as never,
    operation as never,
    runtimeFor(name),
  );
}

export const ENTRY_POINT_MODULES = {
  planner: () => workflowFunction("planner"),
  stepExecutor: () => workflowFunction("stepExecutor"),
  reflector: () => workflowFunction("reflector"),
  concluder: () => workflowFunction("concluder"),
  compressor: () => workflowFunction("compressor"),
  // Runs approved acting calls: the tool catalog (MCP servers, response actions).
  responder: () => workflowFunction("responder"),
  ingest: async () => (await import("./ingest-function.js")).ingestFunction(runtimeFor("ingest")),
  memoryIntrospector: async () =>
    (await import("./memory-introspector-function.js")).memoryIntrospectorFunction(
      runtimeFor("memoryIntrospector"),
    ),
  notifier: async () => (await import("./notifier-function.js")).notifierFunction(runtimeFor("notifier")),
  sweep: async () => (await import("./sweep-function.js")).sweepFunction(runtimeFor("sweep")),
  slackEvents: async () =>
    (await import("./analyst-functions.js")).slackEventsFunction(runtimeFor("slackEvents")),
  analystActions: async () =>
    (await import("./analyst-functions.js")).analystActionsFunction(runtimeFor("analystActions")),
} as const satisfies Record<EntryPointModuleName, () => Promise<unknown>>;
