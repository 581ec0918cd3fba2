import type { InvestigationEvent } from "../domain/investigation.js";
import type { JsonObject } from "../domain/json.js";
import { TOPICS } from "../platform/topics.js";
import type { EventBus } from "../ports/event-bus.js";

export function eventMessage(event: InvestigationEvent): JsonObject {
  return {
    investigationId: event.investigationId,
    seq: event.seq,
    type: event.type,
    at: event.at,
    message: event.message,
    ...(event.stepId ? { stepId: event.stepId } : {}),
  };
}

/**
 * Publishes committed events, keyed by investigation so a subscription with ordering
 * delivers one investigation's events in sequence. They go out together (the client keeps
 * the order of one key); failures propagate (retryable) so the caller's retry re-publishes,
 * and consumers deduplicate by (investigationId, seq).
 */
export async function publishEvents(bus: EventBus, events: readonly InvestigationEvent[]): Promise<void> {
  const sent = events.map((event) =>
    bus.publish(
      TOPICS.investigationEvents,
      eventMessage(event),
      { investigationId: event.investigationId, type: event.type },
      { orderingKey: event.investigationId },
    ),
  );
  const outcomes = await Promise.allSettled(sent);
  const failed = outcomes.find((o) => o.status === "rejected");
  if (failed) throw failed.reason;
}
