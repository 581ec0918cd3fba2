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
 * Publishes committed events. Failures propagate (retryable) so the caller's retry
 * re-publishes; consumers deduplicate by (investigationId, seq).
 */
export async function publishEvents(bus: EventBus, events: readonly InvestigationEvent[]): Promise<void> {
  for (const event of events) {
    await bus.publish(TOPICS.investigationEvents, eventMessage(event), {
      investigationId: event.investigationId,
      type: event.type,
    });
  }
}
