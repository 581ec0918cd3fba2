export interface WorkflowLauncher {
  /** Starts one `investigate` execution; resolves once it is accepted, not when it ends. */
  launch(investigationId: string): Promise<{ executionId: string }>;
}
