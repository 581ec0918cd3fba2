import { FerretError } from "../../domain/errors.js";

/**
 * An acting call ferret will not make: its target is not one the finding names, or the change
 * would do harm (remove a project's last owner). The same call is refused again, so it is
 * never retryable.
 */
export class ActionRefusedError extends FerretError {
  constructor(tool: string, reason: string) {
    super("tool_input", `${tool} refused: ${reason}`, { retryable: false, details: { tool } });
  }
}
