import type { CloudEvent } from "@google-cloud/functions-framework";
import { AgentSessionSchema } from "../domain/agent-session.js";
import { ConfigError, InvalidInputError } from "../domain/errors.js";
import { introspectSession } from "../memory/introspect.js";
import { TOPICS } from "../platform/topics.js";
import { embeddingSpace } from "./embedding-space.js";
import { decodePubSubJson } from "./pubsub-message.js";
import { settle } from "./pubsub-settle.js";
import type { Runtime } from "./runtime.js";

/**
 * Learns from one finished sub-agent session. Exactly-once per sessionId is the store's
 * (one transaction claims the session and applies every change), so a redelivery is safe.
 * The model is the primary one without offline fallback: rule-made judgements should not
 * quietly replace an LLM's in the memory, and nothing waits on this, so a Gemini outage is
 * a retry (redelivery), not a fallback.
 */
export function memoryIntrospectorFunction(runtime: () => Promise<Runtime>) {
  return async (event: CloudEvent<unknown>): Promise<void> => {
    const rt = await runtime();
    await settle(rt, TOPICS.agentSessions, event, async () => {
      const { json, messageId } = decodePubSubJson(event.data);
      const parsed = AgentSessionSchema.safeParse(json);
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        throw new InvalidInputError(
          `not an agent session: ${first ? `${first.path.join(".") || "(root)"}: ${first.message}` : "invalid"}`,
        );
      }
      if (!rt.memories) throw new ConfigError("this runtime has no memory store");
      const report = await introspectSession(parsed.data, {
        model: rt.primaryModel,
        store: rt.memories,
        embeddingSpace: embeddingSpace(rt.config, rt.primaryModel),
        logger: rt.logger,
        now: rt.now,
      });
      rt.logger.info("agent session introspected", { messageId, ...report });
    });
  };
}
