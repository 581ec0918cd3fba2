import type { WorkflowLauncher } from "../ports/workflow-launcher.js";

/**
 * A workflow launcher built on the first launch. Only ingest, the sweep and re-investigations
 * start executions, yet every runtime carries a launcher; building it eagerly loaded the
 * Workflows client library into every function's cold start. A failed build is not cached:
 * the next launch tries again.
 */
export function lazyLauncher(build: () => Promise<WorkflowLauncher>): WorkflowLauncher {
  let building: Promise<WorkflowLauncher> | undefined;
  return {
    launch: async (investigationId) => {
      building ??= build().catch((error: unknown) => {
        building = undefined;
        throw error;
      });
      return (await building).launch(investigationId);
    },
  };
}
