import { TOPICS } from "../platform/topics.js";
import { pubsub, type Role, slack, type WorkflowRole, workflow } from "./role.js";

/**
 * Every Cloud Function of ferret, one role each, in the order a finding meets them: its name
 * (the entry point), what triggers it, and the file that defines the rest (roles/<role>.ts),
 * imported on the function's first request. index.ts registers one function per entry,
 * Terraform declares one google_cloudfunctions2_function per entry with that entry point and
 * trigger (test/unit/terraform), the local stack starts one functions-framework server per
 * entry, the in-process workflow routes by it, and docs/architecture.md's table of roles is
 * written from it (test/unit/docs). The web console is not a role: it is optional
 * (terraform/console.tf) and has its own loader in index.ts.
 */
export const ROLES = [
  pubsub("ingest", TOPICS.findings, async () => (await import("./ingest.js")).ingest),
  workflow("planner", "FERRET_PLANNER_URL", async () => (await import("./planner.js")).planner),
  workflow(
    "stepExecutor",
    "FERRET_STEP_EXECUTOR_URL",
    async () => (await import("./step-executor.js")).stepExecutor,
  ),
  workflow("reflector", "FERRET_REFLECTOR_URL", async () => (await import("./reflector.js")).reflector),
  workflow("concluder", "FERRET_CONCLUDER_URL", async () => (await import("./concluder.js")).concluder),
  workflow("compressor", "FERRET_COMPRESSOR_URL", async () => (await import("./compressor.js")).compressor),
  // Records an acting call the workflow pauses on, then runs it once approved (decision 0031).
  workflow("responder", "FERRET_RESPONDER_URL", async () => (await import("./responder.js")).responder),
  pubsub(
    "memoryIntrospector",
    TOPICS.agentSessions,
    async () => (await import("./memory-introspector.js")).memoryIntrospector,
  ),
  pubsub("notifier", TOPICS.investigationEvents, async () => (await import("./notifier.js")).notifier),
  // Housekeeping on Cloud Scheduler's requests and the notifier's drain requests (app/sweep-request.ts).
  pubsub("sweep", TOPICS.sweep, async () => (await import("./sweep.js")).sweep),
  // The analyst's loop: the one function Slack calls directly (public, authenticated by Slack's
  // request signature; docs/decisions/0018), and the worker behind it.
  slack("slackEvents", async () => (await import("./slack-events.js")).slackEvents),
  pubsub(
    "analystActions",
    TOPICS.analystActions,
    async () => (await import("./analyst-actions.js")).analystActions,
  ),
] as const satisfies readonly Role[];

export type RoleName = (typeof ROLES)[number]["name"];

/** The roles the investigate workflow calls over HTTP. */
export const WORKFLOW_ROLES: readonly WorkflowRole[] = ROLES.filter(
  (role): role is Extract<(typeof ROLES)[number], WorkflowRole> =>
    role.trigger === "http" && role.calledBy === "workflow",
);

/** The listed role of that name, typed by its trigger. */
export function roleNamed<Name extends RoleName>(
  name: Name,
): Extract<(typeof ROLES)[number], { name: Name }> {
  const found = ROLES.find(
    (role): role is Extract<(typeof ROLES)[number], { name: Name }> => role.name === name,
  );
  if (!found) throw new Error(`no role named ${name}`);
  return found;
}
