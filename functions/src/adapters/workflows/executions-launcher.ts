import { ExecutionsClient } from "@google-cloud/workflows";
import { errorMessage, FerretError } from "../../domain/errors.js";
import type { WorkflowLauncher } from "../../ports/workflow-launcher.js";

const RETRYABLE_GRPC = new Set([4, 8, 10, 13, 14]); // DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL, UNAVAILABLE

/** Production launcher: the Workflows Executions API. */
export class ExecutionsApiLauncher implements WorkflowLauncher {
  private readonly client = new ExecutionsClient();

  constructor(
    private readonly workflowPath: { project: string; location: string; workflow: string },
    private readonly deadlineSeconds: number,
  ) {}

  async launch(investigationId: string): Promise<{ executionId: string }> {
    const parent = this.client.workflowPath(
      this.workflowPath.project,
      this.workflowPath.location,
      this.workflowPath.workflow,
    );
    try {
      const [execution] = await this.client.createExecution({
        parent,
        execution: { argument: JSON.stringify({ investigationId, deadlineSeconds: this.deadlineSeconds }) },
      });
      return { executionId: execution.name ?? "unknown" };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new FerretError("storage", `could not start the workflow: ${errorMessage(error)}`, {
        retryable: typeof code === "number" && RETRYABLE_GRPC.has(code),
        cause: error,
      });
    }
  }
}
