import { TOPICS, type TopicName } from "./topics.js";

/**
 * The Cloud Functions this source tree exposes. One source archive, one entry point per
 * function. Terraform declares one google_cloudfunctions2_function per entry here with the
 * same entry point (checked by test/unit/terraform), and the local stack starts one
 * functions-framework server per entry.
 */
export type EntryPoint =
  | { readonly name: string; readonly trigger: "http"; readonly calledBy: "workflow" | "slack" }
  | { readonly name: string; readonly trigger: "pubsub"; readonly topic: TopicName };

export const ENTRY_POINTS = [
  { name: "ingest", trigger: "pubsub", topic: TOPICS.findings },
  { name: "planner", trigger: "http", calledBy: "workflow" },
  { name: "stepExecutor", trigger: "http", calledBy: "workflow" },
  { name: "reflector", trigger: "http", calledBy: "workflow" },
  { name: "concluder", trigger: "http", calledBy: "workflow" },
  { name: "compressor", trigger: "http", calledBy: "workflow" },
  // Records an acting call the workflow pauses on, then runs it once approved (decision 0031).
  { name: "responder", trigger: "http", calledBy: "workflow" },
  { name: "memoryIntrospector", trigger: "pubsub", topic: TOPICS.agentSessions },
  { name: "notifier", trigger: "pubsub", topic: TOPICS.investigationEvents },
  // Housekeeping on Cloud Scheduler's requests and the notifier's drain requests (app/sweep-request.ts).
  { name: "sweep", trigger: "pubsub", topic: TOPICS.sweep },
  // The analyst's loop: the one function Slack calls directly (public, authenticated by Slack's
  // request signature; docs/decisions/0018), and the worker behind it.
  { name: "slackEvents", trigger: "http", calledBy: "slack" },
  { name: "analystActions", trigger: "pubsub", topic: TOPICS.analystActions },
] as const satisfies readonly EntryPoint[];

export type EntryPointName = (typeof ENTRY_POINTS)[number]["name"];
