import { analystActions } from "./analyst-actions.js";
import { compressor } from "./compressor.js";
import { concluder } from "./concluder.js";
import { ingest } from "./ingest.js";
import { memoryIntrospector } from "./memory-introspector.js";
import { notifier } from "./notifier.js";
import { planner } from "./planner.js";
import { reflector } from "./reflector.js";
import { responder } from "./responder.js";
import type { Role, WorkflowRole } from "./role.js";
import { slackEvents } from "./slack-events.js";
import { stepExecutor } from "./step-executor.js";
import { sweep } from "./sweep.js";

/**
 * Every Cloud Function of ferret, one role each, in the order a finding meets them. One
 * source archive serves them all: index.ts registers each under its name (the entry point),
 * Terraform declares one google_cloudfunctions2_function per role with that entry point
 * (test/unit/terraform), the local stack starts one functions-framework server per role, the
 * in-process workflow routes by it, and docs/architecture.md's table of roles is checked
 * against it (test/unit/docs). The web console is not a role: it is optional
 * (terraform/console.tf) and has its own loader in index.ts.
 */
export const ROLES = [
  ingest,
  planner,
  stepExecutor,
  reflector,
  concluder,
  compressor,
  responder,
  memoryIntrospector,
  notifier,
  sweep,
  slackEvents,
  analystActions,
] as const satisfies readonly Role[];

export type RoleName = (typeof ROLES)[number]["name"];

/** The roles the investigate workflow calls over HTTP. */
export const WORKFLOW_ROLES: readonly WorkflowRole[] = ROLES.filter(
  (role): role is Extract<(typeof ROLES)[number], WorkflowRole> =>
    role.trigger === "http" && role.calledBy === "workflow",
);
