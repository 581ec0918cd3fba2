import { errorMessage, FerretError } from "../../domain/errors.js";
import type { WorkflowLauncher } from "../../ports/workflow-launcher.js";

/**
 * Starts executions on the local executions service (workflows/local-executions), at the path
 * the Executions API's REST binding gives createExecution
 * (POST /v1/{parent=projects/*\/locations/*\/workflows/*}/executions) for the workflow the
 * deployed launcher would name, so a test watching the wire sees which workflow, where, a
 * function would start in GCP.
 */
export class LocalWorkflowLauncher implements WorkflowLauncher {
  constructor(
    private readonly baseUrl: string,
    private readonly deadlineSeconds: number,
    private readonly workflow: { project: string; location: string; workflow: string },
  ) {}

  async launch(investigationId: string): Promise<{ executionId: string }> {
    const { project, location, workflow } = this.workflow;
    const parent = `projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}/workflows/${encodeURIComponent(workflow)}`;
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/v1/${parent}/executions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          argument: JSON.stringify({ investigationId, deadlineSeconds: this.deadlineSeconds }),
        }),
      });
    } catch (error) {
      throw new FerretError("storage", `workflow service unreachable: ${errorMessage(error)}`, {
        retryable: true,
        cause: error,
      });
    }
    if (!response.ok) {
      throw new FerretError("storage", `workflow service answered ${response.status}`, {
        retryable: response.status >= 500,
      });
    }
    const body = (await response.json()) as { name?: unknown };
    if (typeof body.name !== "string")
      throw new FerretError("storage", "workflow service returned no execution name", { retryable: false });
    return { executionId: body.name };
  }
}
