import type { JsonObject } from "../domain/json.js";

/**
 * Sends a Workflows callback: an HTTP POST to the URL events.create_callback_endpoint made,
 * as the approval function's own identity (Workflows accepts only principals with
 * workflows.callbacks.send; the local runner's callback server checks the same way).
 */
export interface WorkflowCallbacks {
  /** Resolves with the HTTP status; 404 means the execution no longer waits there. */
  send(url: string, body: JsonObject): Promise<{ status: number }>;
}
