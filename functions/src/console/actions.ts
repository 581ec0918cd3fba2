import {
  type AnalystAction,
  AnalystActionSchema,
  analystActionId,
  DisputeReasonSchema,
} from "../domain/analyst.js";
import { VerdictSchema } from "../domain/conclusion.js";
import { InvalidInputError, NotFoundError } from "../domain/errors.js";
import type { JsonObject } from "../domain/json.js";
import { MemoryIdSchema } from "../memory/memory.js";
import { ANALYST_TOPICS } from "../platform/topics.js";
import type { ConsoleUser } from "./identity.js";
import type { ConsoleDeps } from "./ports.js";

/**
 * The console's state changes, each the same operation as its Slack counterpart: a dispute or
 * a re-investigation is published to `analyst-actions` as the very message `slackEvents`
 * publishes for a button (the analystActions worker records it, writes SCC marks, turns a
 * dispute into a lesson, updates the Slack card); deleting a memory is the memory store's
 * delete, as `ferret memories delete` does. The acting user is the verified console user.
 */
export function consoleActor(user: ConsoleUser): AnalystAction["user"] {
  return { id: `console:${user.email}`, name: user.email.slice(0, 80) };
}

export async function publishDispute(
  deps: Pick<ConsoleDeps, "bus" | "store" | "logger" | "now">,
  user: ConsoleUser,
  investigationId: string,
  form: { verdict?: unknown; reason?: unknown },
): Promise<AnalystAction> {
  const verdict = VerdictSchema.safeParse(form.verdict);
  if (!verdict.success) throw new InvalidInputError("choose the verdict you think is right");
  const reason = DisputeReasonSchema.safeParse(form.reason);
  if (!reason.success) throw new InvalidInputError("give a reason of 3 to 1000 characters");
  const investigation = await deps.store.get(investigationId);
  if (!investigation) throw new NotFoundError(`investigation ${investigationId} not found`);
  if (!investigation.conclusion) throw new InvalidInputError(`${investigationId} has no verdict to dispute`);
  return publish(deps, user, investigationId, "dispute", { verdict: verdict.data, reason: reason.data });
}

export async function publishReinvestigate(
  deps: Pick<ConsoleDeps, "bus" | "store" | "logger" | "now">,
  user: ConsoleUser,
  investigationId: string,
): Promise<AnalystAction> {
  if (!(await deps.store.get(investigationId))) {
    throw new NotFoundError(`investigation ${investigationId} not found`);
  }
  return publish(deps, user, investigationId, "reinvestigate");
}

export async function deleteMemory(
  deps: Pick<ConsoleDeps, "memories" | "logger">,
  user: ConsoleUser,
  memoryId: string,
): Promise<void> {
  const id = MemoryIdSchema.safeParse(memoryId);
  if (!id.success) throw new InvalidInputError("not a memory id");
  if (!(await deps.memories.delete(id.data))) throw new NotFoundError(`memory ${id.data} not found`);
  deps.logger.info("memory deleted from the console", { memoryId: id.data, user: user.email });
}

async function publish(
  deps: Pick<ConsoleDeps, "bus" | "logger" | "now">,
  user: ConsoleUser,
  investigationId: string,
  kind: "dispute" | "reinvestigate",
  dispute?: { verdict: AnalystAction["verdict"]; reason: string },
): Promise<AnalystAction> {
  const actor = consoleActor(user);
  const parsed = AnalystActionSchema.safeParse({
    actionId: analystActionId({
      investigationId,
      kind,
      userId: actor.id,
      ...(dispute ? { verdict: dispute.verdict, reason: dispute.reason } : {}),
    }),
    kind,
    investigationId,
    user: actor,
    ...dispute,
    at: deps.now().toISOString(),
  });
  if (!parsed.success) {
    throw new InvalidInputError(`not an analyst action: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  }
  const action = parsed.data;
  await deps.bus.publish(ANALYST_TOPICS.analystActions, action as unknown as JsonObject, {
    kind,
    investigationId,
  });
  deps.logger.info("analyst action accepted from the console", {
    kind,
    investigationId,
    actionId: action.actionId,
    user: user.email,
  });
  return action;
}
