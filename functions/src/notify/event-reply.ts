import type { Investigation, InvestigationEvent } from "../domain/investigation.js";
import type { Reflection } from "../domain/reflection.js";
import type { ChatMessage } from "../ports/chat-sink.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import {
  renderCompressed,
  renderConclusion,
  renderEventNote,
  renderPlanReply,
  renderReflection,
  renderStepFinished,
  renderStopped,
} from "./blocks.js";
import { renderQueuedNote } from "./render-governor.js";

export type StoreReader = Pick<InvestigationStore, "getStepResult" | "listStepResults" | "listReflections">;

/**
 * Events carry only ids and a short message; the reply is rendered from what the store
 * holds. Step results and reflections are write-once, so a redelivery renders the same reply.
 */
export async function replyFor(
  event: InvestigationEvent,
  investigation: Investigation,
  store: StoreReader,
  root: { showedPlan: boolean },
): Promise<ChatMessage | undefined> {
  switch (event.type) {
    case "created":
    case "step_started":
    case "related":
    // The approval message is posted and edited by notify/approval-notes.ts, not as a reply.
    case "approval_requested":
    case "approval_decided":
    case "action_ran":
      return undefined;
    case "queued":
      return renderQueuedNote(event);
    case "planned":
      return root.showedPlan ? undefined : renderPlanReply(investigation);
    case "step_finished": {
      const result = event.stepId ? await store.getStepResult(investigation.id, event.stepId) : undefined;
      return renderStepFinished(investigation, event, result);
    }
    case "reflected":
      return renderReflection(
        investigation,
        event,
        reflectionAt(await store.listReflections(investigation.id), event.at),
      );
    case "compressed":
      return renderCompressed(investigation, event);
    case "concluded":
      return investigation.conclusion
        ? renderConclusion(investigation, investigation.conclusion)
        : renderEventNote(investigation, event, "🏁");
    case "needs_human":
    case "failed":
      return renderStopped(event.type, investigation, event, await store.listStepResults(investigation.id));
  }
}

/**
 * The reflection an event announces: events do not carry the wave, but the reflection and
 * its event are written in one transaction, so it is the latest one created by then.
 */
export function reflectionAt(reflections: readonly Reflection[], at: string): Reflection | undefined {
  const atMs = Date.parse(at);
  const before = reflections.filter((r) => Date.parse(r.createdAt) <= atMs);
  const pool = before.length > 0 ? before : reflections;
  return [...pool]
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.wave - b.wave)
    .at(-1);
}
