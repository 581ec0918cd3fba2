import type { CloudEvent, Request, Response } from "@google-cloud/functions-framework";
import { z } from "zod";
import type { AppDeps, IngestDeps } from "../app/deps.js";
import type { Runtime } from "../entry/runtime.js";
import type { WorkflowCallAnswer } from "../entry/workflow-call.js";
import { type Lazy, lazy } from "../platform/lazy.js";
import type { Logger } from "../platform/logger.js";
import type { TopicName } from "../platform/topics.js";

/**
 * What a role is: one Cloud Function of ferret, defined once in functions/src/roles/<role>.ts
 * with its name, its trigger, the request it accepts and the answer it gives, what its
 * runtime builds, and its run function. index.ts registers the functions from the list
 * (roles/index.ts), the local workflow routes to them by it, Terraform's function list and
 * docs/architecture.md's table of roles are checked against it.
 *
 * A definition imports schemas and types only; the code a role runs is its `load`, imported
 * on the function's first request, so a function's cold import holds its own code and no
 * other role's (test/unit/entry/cold-import-graph.test.ts).
 */

/**
 * What a function's runtime builds beyond what every function has (config, logger, the
 * investigation store, the event bus, the models, the launcher built on first launch): see
 * entry/compose.ts.
 */
export interface RuntimeNeeds {
  /** The tool catalog and the log tables: the log warehouse, threat intel, MCP servers. */
  tools: boolean;
  /** The chat sink built at start-up (it posts); elsewhere it is built on the first post. */
  chat: boolean;
}

/** What every request from the workflow carries. */
export const InvestigationRefSchema = z.object({ investigationId: z.string().regex(/^inv-[a-f0-9]{24}$/) });
export type InvestigationRef = z.infer<typeof InvestigationRefSchema>;

/** A request about one step of the plan (stepExecutor, compressor). */
export const StepRequestSchema = InvestigationRefSchema.extend({ stepId: z.string().min(1).max(40) });

/** A role the investigate workflow calls over HTTP: a JSON request in, a JSON answer out. */
export interface WorkflowRoleDefinition<
  Name extends string,
  Req extends z.ZodType<InvestigationRef>,
  Res extends z.ZodType,
  Code,
> {
  name: Name;
  /** The variable the workflow reads this function's URL from (workflows/investigate.yaml). */
  urlEnv: `FERRET_${string}_URL`;
  needs: RuntimeNeeds;
  request: Req;
  /** The answer the workflow switches on; checked before it leaves the function. */
  response: Res;
  /** The role's code, imported on the first request. */
  load: () => Promise<Code>;
  run: (code: Code, input: z.output<Req>, deps: AppDeps) => Promise<z.input<Res>>;
  /** What the "<name> done" log line says of an answer, beyond the time it took. */
  logged?: (answer: z.output<Res>) => Record<string, unknown>;
}

/** A role the investigate workflow calls, whatever its request and answer types. */
export interface WorkflowRole<Name extends string = string> {
  readonly name: Name;
  readonly trigger: "http";
  readonly calledBy: "workflow";
  readonly urlEnv: string;
  readonly needs: RuntimeNeeds;
  readonly request: z.ZodType<InvestigationRef>;
  readonly response: z.ZodType;
  /**
   * Imports the role's code and what carries its calls (once; a failed import is tried again
   * on the next call). The first call does it; the bench and the graph test call it alone.
   */
  readonly code: Lazy<unknown>;
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

/** What a Pub/Sub role's run function gets besides its message. */
interface DeliveryContext {
  runtime: Runtime;
  messageId: string | undefined;
  /** The dependencies ingest, the sweep and re-investigations use. */
  ingestDeps: () => IngestDeps;
  /** The dependencies of one investigation's model work, with its model as chooseModel decides. */
  appDepsFor: (investigationId: string) => Promise<AppDeps>;
}

/** A role fed by a Pub/Sub push subscription: a message in, an ack (or a dead letter) out. */
export interface PubSubRoleDefinition<Name extends string, Msg extends z.ZodType, Code> {
  name: Name;
  topic: TopicName;
  needs: RuntimeNeeds;
  /** The message's JSON; one that does not parse is dead-lettered with the reason. */
  message: Msg;
  /** What a message is, for that reason: `not ${what}: …`. */
  what: string;
  load: () => Promise<Code>;
  run: (code: Code, message: z.output<Msg>, context: DeliveryContext) => Promise<void>;
}

export interface PubSubRole<Name extends string = string> {
  readonly name: Name;
  readonly trigger: "pubsub";
  readonly topic: TopicName;
  readonly needs: RuntimeNeeds;
  readonly message: z.ZodType;
  readonly code: Lazy<unknown>;
  /** Settles one delivery: acked when done, dead-lettered when it can never succeed, else redelivered. */
  readonly deliver: (event: CloudEvent<unknown>, runtime: () => Promise<Runtime>) => Promise<void>;
}

/**
 * The one function Slack calls directly (public, authenticated by Slack's request signature,
 * docs/decisions/0018): its request is Slack's signed form post, parsed by the handler.
 */
interface SlackRoleDefinition<Name extends string, Code> {
  name: Name;
  needs: RuntimeNeeds;
  load: () => Promise<Code>;
  handler: (code: Code, runtime: () => Promise<Runtime>) => (req: Request, res: Response) => Promise<void>;
}

export interface SlackRole<Name extends string = string> {
  readonly name: Name;
  readonly trigger: "http";
  readonly calledBy: "slack";
  readonly needs: RuntimeNeeds;
  readonly code: Lazy<unknown>;
  readonly handler: (
    runtime: () => Promise<Runtime>,
  ) => Promise<(req: Request, res: Response) => Promise<void>>;
}

export type Role = WorkflowRole | PubSubRole | SlackRole;

// The machinery that carries a call or a message loads with the first one, like the role's code.
const workflowCall = lazy(() => import("../entry/workflow-call.js"));
const pubsubDelivery = lazy(() => import("../entry/pubsub-delivery.js"));

export function workflowRole<
  const Name extends string,
  Req extends z.ZodType<InvestigationRef>,
  Res extends z.ZodType,
  Code,
>(definition: WorkflowRoleDefinition<Name, Req, Res, Code>) {
  const code = lazy(async () => (await Promise.all([definition.load(), workflowCall()]))[0]);
  const role = {
    ...definition,
    trigger: "http",
    calledBy: "workflow",
    code,
    call: async (body, depsFor, logger) =>
      (await workflowCall()).answerWorkflowCall(definition, code, body, depsFor, logger),
  } as const satisfies WorkflowRole<Name>;
  return role;
}

export function pubsubRole<const Name extends string, Msg extends z.ZodType, Code>(
  definition: PubSubRoleDefinition<Name, Msg, Code>,
) {
  const code = lazy(async () => (await Promise.all([definition.load(), pubsubDelivery()]))[0]);
  const role = {
    ...definition,
    trigger: "pubsub",
    code,
    deliver: async (event, runtime) => (await pubsubDelivery()).deliver(definition, code, event, runtime),
  } as const satisfies PubSubRole<Name>;
  return role;
}

export function slackRole<const Name extends string, Code>(definition: SlackRoleDefinition<Name, Code>) {
  const code = lazy(definition.load);
  const role = {
    name: definition.name,
    needs: definition.needs,
    trigger: "http",
    calledBy: "slack",
    code,
    handler: async (runtime) => definition.handler(await code(), runtime),
  } as const satisfies SlackRole<Name>;
  return role;
}
