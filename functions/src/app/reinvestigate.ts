import type { Config } from "../config/config.js";
import type { AnalystAction, AnalystDecision } from "../domain/analyst.js";
import { InvalidInputError } from "../domain/errors.js";
import { reinvestigationIdFor, TERMINAL_STATUSES } from "../domain/investigation.js";
import { ROOT_SCOPE, rootTsOf, updateBoard } from "../notify/notifier.js";
import { DEFAULT_POST_ONCE_POLICY, postOnce } from "../notify/post-once.js";
import type { Logger } from "../platform/logger.js";
import type { ChatSink } from "../ports/chat-sink.js";
import type { EventBus } from "../ports/event-bus.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import type { WorkflowLauncher } from "../ports/workflow-launcher.js";
import { newInvestigation } from "./ingest.js";
import { launchOnce } from "./launch.js";
import { publishEvents } from "./publish.js";
import { ANALYST_REPLY_SCOPE, appendDecision, renderActionReply } from "./slack-actions.js";
import { REINVESTIGATION_SCOPE } from "./thread-lookup.js";

export interface ReinvestigateDeps {
  config: Config;
  store: InvestigationStore;
  sink: ChatSink;
  bus: EventBus;
  launcher: WorkflowLauncher;
  logger: Logger;
  now: () => Date;
  /** Recorded on the new investigation, as ingest does. */
  modelName: string;
}

export interface ReinvestigateOutcome {
  investigationId: string;
  created: boolean;
  launched: boolean;
  reply: "posted" | "already_posted" | "no_thread";
}

/**
 * Re-investigate: the same finding investigated again from scratch, under a new investigation
 * id that names the previous one, in the previous one's thread (its root becomes the new
 * investigation's status board). There is one re-investigation per investigation: its id is
 * derived from the previous id, so double clicks, redeliveries and two analysts clicking at
 * once all reach the same one, and the workflow is launched once.
 */
export async function handleReinvestigate(
  action: AnalystAction,
  deps: ReinvestigateDeps,
): Promise<ReinvestigateOutcome> {
  if (action.kind !== "reinvestigate") throw new InvalidInputError(`not a re-investigation: ${action.kind}`);
  const previous = await deps.store.require(action.investigationId);
  if (!TERMINAL_STATUSES.includes(previous.status)) {
    throw new InvalidInputError(`${previous.id} is still ${previous.status}; re-investigate once it stops`);
  }
  const nextId = reinvestigationIdFor(previous.id);
  const rootTs = await rootTsOf(deps.store, previous.id);
  // Before the new investigation exists: its first event must find the thread already claimed,
  // or the notifier would open a second thread.
  await deps.store.claimOnce(REINVESTIGATION_SCOPE, previous.id, {
    investigationId: nextId,
    by: action.user.id,
  });
  if (rootTs) await deps.store.claimOnce(`${ROOT_SCOPE}-posted`, nextId, { ts: rootTs, plan: "absent" });

  const decision: AnalystDecision = {
    actionId: action.actionId,
    kind: "reinvestigate",
    by: action.user,
    ...(previous.conclusion ? { ferretVerdict: previous.conclusion.verdict } : {}),
    at: action.at,
  };
  const { investigation: decided } = await appendDecision(deps.store, previous.id, decision, deps.now);

  const draft = {
    ...newInvestigation(previous.finding, {
      config: deps.config,
      now: deps.now(),
      modelName: deps.modelName,
    }),
    id: nextId,
    previousInvestigationId: previous.id,
  };
  const created = await deps.store.create(draft, [
    {
      type: "created",
      message: `Re-investigation of ${previous.id} (${previous.finding.category}) requested from Slack`,
    },
  ]);
  await publishEvents(deps.bus, created.events);
  const { launched } = await launchOnce(nextId, deps);
  deps.logger.info("re-investigation started", {
    previousInvestigationId: previous.id,
    investigationId: nextId,
    created: created.created,
    launched,
  });

  if (!rootTs) return { investigationId: nextId, created: created.created, launched, reply: "no_thread" };
  const current = await deps.store.require(nextId);
  await updateBoard(current, rootTs, deps.sink, deps.store, {
    sccButtons: deps.config.scc.writeback && deps.config.scc.analystMuteAndState,
  });
  const reply = await postOnce(
    {
      scope: ANALYST_REPLY_SCOPE,
      key: action.actionId,
      post: () => deps.sink.post({ ...renderActionReply(action, decided, "off"), threadTs: rootTs }),
    },
    { store: deps.store, logger: deps.logger, now: deps.now, policy: DEFAULT_POST_ONCE_POLICY },
  );
  return { investigationId: nextId, created: created.created, launched, reply: reply.status };
}
