import { errorMessage } from "../domain/errors.js";
import { JsonObjectSchema } from "../domain/json.js";
import type { LogAnalystSession } from "../domain/log-analyst-session.js";
import type { Logger } from "../platform/logger.js";
import { TOPICS } from "../platform/topics.js";
import type { EventBus } from "../ports/event-bus.js";
import type { PublishSession } from "./contract.js";

/** A publish that has not finished by then is left to the client; the answer does not wait for it. */
const PUBLISH_WAIT_MS = 10_000;

/**
 * Publishes each finished session to `agent-sessions`, where the memory introspector picks
 * it up. The session id and investigation id travel as attributes so a consumer can
 * deduplicate without parsing the body.
 */
export function publishSessionsTo(bus: EventBus, logger: Logger): PublishSession {
  return async (session: LogAnalystSession) => {
    const body = JsonObjectSchema.parse(JSON.parse(JSON.stringify(session)));
    const published = bus.publish(TOPICS.agentSessions, body, {
      sessionId: session.sessionId,
      investigationId: session.investigationId,
    });
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), PUBLISH_WAIT_MS);
    });
    try {
      const outcome = await Promise.race([published, waited]);
      if (outcome === "late") {
        published.catch((error: unknown) =>
          logger.warn("late log-analysis session publish failed", {
            sessionId: session.sessionId,
            error: errorMessage(error),
          }),
        );
        logger.warn("log-analysis session publish is slow; not waiting for it", {
          sessionId: session.sessionId,
        });
      }
    } finally {
      clearTimeout(timer);
    }
  };
}
