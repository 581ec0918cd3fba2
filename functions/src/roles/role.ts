import type { CloudEvent, Request, Response } from "@google-cloud/functions-framework";
import type { z } from "zod";
import type { AppDeps, IngestDeps } from "../app/deps.js";
import type { Runtime } from "../entry/runtime.js";
import type { WorkflowCallAnswer } from "../entry/workflow-call.js";
import { type Lazy, lazy } from "../platform/lazy.js";
import type { Logger } from "../platform/logger.js";
import type { TopicName } from "../platform/topics.js";

/**
 * What a role is. A role is one Cloud Function of ferret. roles/index.ts lists them: each
 * one's name (the entry point Terraform deploys), what triggers it (the workflow, a Pub/Sub
 * topic, Slack) and the file that defines it, roles/<role>.ts, imported on the function's
 * first request. That file holds the rest: the request it accepts and the answer it gives
 * (zod schemas), what its runtime builds, and its run function.
 *
 * The list imports no role's file, so a function's cold import holds the list and its own
 * role, never another role's code (test/unit/entry/cold-import-graph.test.ts).
 */

/**
 * What a function's runtime builds beyond what every function has (config, logger, the
 * investigation store, the event bus, the models, the launcher built on first launch): see
 * entry/compose.ts.
 */
export interface RuntimeNeeds {
  /** The tool registry and the log tables: the log warehouse, threat intel, MCP servers. */
  tools: boolean;
  /** The chat sink built at start-up (it posts); elsewhere it is built on the first post. */
  chat: boolean;
}

/** What every request from the workflow carries (roles/workflow-requests.ts). */
export interface InvestigationRef {
  investigationId: string;
}

/** A role the investigate workflow calls over HTTP: a JSON request in, a JSON answer out. */
export interface WorkflowRoleDefinition<
  Name extends string,
  Req extends z.ZodType<InvestigationRef>,
  Res extends z.ZodType,
> {
  name: Name;
  needs: RuntimeNeeds;
  request: Req;
  /** The answer the workflow switches on; checked before it leaves the function. */
  response: Res;
  run: (input: z.output<Req>, deps: AppDeps) => Promise<z.input<Res>>;
  /** What the "<name> done" log line says of an answer, beyond the time it took. */
  logged?: (answer: z.output<Res>) => Record<string, unknown>;
}

/** What a Pub/Sub role's run function gets besides its message. */
export interface DeliveryContext {
  runtime: Runtime;
  messageId: string | undefined;
  /** The dependencies ingest, the sweep and re-investigations use. */
  ingestDeps: () => IngestDeps;
  /** The dependencies of one investigation's model work, with its model as chooseModel decides. */
  appDepsFor: (investigationId: string) => Promise<AppDeps>;
}

/** A role fed by a Pub/Sub push subscription: a message in, an ack (or a dead letter) out. */
export interface PubSubRoleDefinition<Name extends string, Msg extends z.ZodType> {
  name: Name;
  needs: RuntimeNeeds;
  /** The message's JSON; one that does not parse is dead-lettered with the reason. */
  message: Msg;
  /** What a message is, for that reason: `not ${what}: …`. */
  what: string;
  run: (message: z.output<Msg>, context: DeliveryContext) => Promise<void>;
}

/**
 * The one function Slack calls directly (public, authenticated by Slack's request signature,
 * docs/decisions/0018): its request is Slack's signed form post, parsed by the handler.
 */
export interface SlackRoleDefinition<Name extends string> {
  name: Name;
  needs: RuntimeNeeds;
  handler: (runtime: () => Promise<Runtime>) => (req: Request, res: Response) => Promise<void>;
}

/** Gives a definition its types: the request and answer flow from the schemas into `run`. */
export function workflowRoleDefinition<
  const Name extends string,
  Req extends z.ZodType<InvestigationRef>,
  Res extends z.ZodType,
>(definition: WorkflowRoleDefinition<Name, Req, Res>): WorkflowRoleDefinition<Name, Req, Res> {
  return definition;
}

export function pubsubRoleDefinition<const Name extends string, Msg extends z.ZodType>(
  definition: PubSubRoleDefinition<Name, Msg>,
): PubSubRoleDefinition<Name, Msg> {
  return definition;
}

export function slackRoleDefinition<const Name extends string>(
  definition: SlackRoleDefinition<Name>,
): SlackRoleDefinition<Name> {
  return definition;
}

/** What every entry of the list has, whatever triggers it. */
interface ListedRole<Name extends string> {
  readonly name: Name;
  /**
   * Imports the role's file and what carries its calls (once; a failed import is tried again
   * on the next use). The function's first request does it; the bench and the graph test
   * call it alone.
   */
  readonly definition: Lazy<{ needs: RuntimeNeeds }>;
}

export interface WorkflowRole<Name extends string = string> extends ListedRole<Name> {
  readonly trigger: "http";
  readonly calledBy: "workflow";
  /** The variable the workflow reads this function's URL from (workflows/investigate.yaml). */
  readonly urlEnv: `FERRET_${string}_URL`;
  /**
   * One call from the workflow, whatever carries it (the HTTP function or the in-process
   * transport): validated, run with the investigation's dependencies, errors as statuses.
   */
  readonly call: (
    body: unknown,
    depsFor: (investigationId: string) => Promise<AppDeps>,
    logger: Logger,
  ) => Promise<WorkflowCallAnswer>;
}

export interface PubSubRole<Name extends string = string> extends ListedRole<Name> {
  readonly trigger: "pubsub";
  readonly topic: TopicName;
  /** Settles one delivery: acked when done, dead-lettered when it can never succeed, else redelivered. */
  readonly deliver: (event: CloudEvent<unknown>, runtime: () => Promise<Runtime>) => Promise<void>;
}

export interface SlackRole<Name extends string = string> extends ListedRole<Name> {
  readonly trigger: "http";
  readonly calledBy: "slack";
  readonly handler: (
    runtime: () => Promise<Runtime>,
  ) => Promise<(req: Request, res: Response) => Promise<void>>;
}

export type Role = WorkflowRole | PubSubRole | SlackRole;

// What carries a call or a message loads with the role's file, on the first request.
const workflowCall = lazy(() => import("../entry/workflow-call.js"));
const pubsubDelivery = lazy(() => import("../entry/pubsub-delivery.js"));

/** A role the workflow calls; its file must define the role of the same name. */
export function workflow<
  const Name extends string,
  Req extends z.ZodType<InvestigationRef>,
  Res extends z.ZodType,
>(
  name: Name,
  urlEnv: `FERRET_${string}_URL`,
  load: () => Promise<WorkflowRoleDefinition<NoInfer<Name>, Req, Res>>,
): WorkflowRole<Name> {
  const definition = lazy(async () => (await Promise.all([load(), workflowCall()]))[0]);
  return {
    name,
    trigger: "http",
    calledBy: "workflow",
    urlEnv,
    definition,
    call: async (body, depsFor, logger) =>
      (await workflowCall()).answerWorkflowCall(name, definition, body, depsFor, logger),
  };
}

/** A role fed by `topic`; its file must define the role of the same name. */
export function pubsub<const Name extends string, Msg extends z.ZodType>(
  name: Name,
  topic: TopicName,
  load: () => Promise<PubSubRoleDefinition<NoInfer<Name>, Msg>>,
): PubSubRole<Name> {
  const definition = lazy(async () => (await Promise.all([load(), pubsubDelivery()]))[0]);
  return {
    name,
    trigger: "pubsub",
    topic,
    definition,
    deliver: async (event, runtime) => (await pubsubDelivery()).deliver(topic, definition, event, runtime),
  };
}

/** The role Slack calls; its file must define the role of the same name. */
export function slack<const Name extends string>(
  name: Name,
  load: () => Promise<SlackRoleDefinition<NoInfer<Name>>>,
): SlackRole<Name> {
  const definition = lazy(load);
  return {
    name,
    trigger: "http",
    calledBy: "slack",
    definition,
    handler: async (runtime) => (await definition()).handler(runtime),
  };
}
