// Local runner for Google Cloud Workflows YAML. See
// docs/decisions/0003-local-workflows-runner.md for why it exists and what it covers.

export { type CallbackServer, type CallbackServerOptions, startCallbackServer } from "./callback-server.js";
export { InvalidWorkflowError, UnsupportedConstructError, WorkflowError } from "./errors.js";
export type { WorkflowDefinition } from "./loader/ast.js";
export { type LoadedWorkflow, type LoadOptions, loadWorkflow } from "./loader/load.js";
export { fetchTransport } from "./runtime/fetch-transport.js";
export {
  type CallbackEndpoints,
  type CallbackRequest,
  type HttpRequest,
  type HttpResponse,
  type HttpTransport,
  HttpTransportError,
  type LogEntry,
  type RunOptions,
  type StepEvent,
} from "./runtime/options.js";
export { runWorkflow } from "./runtime/run.js";
