import { ConfigError } from "../domain/errors.js";
import { LogAnalystSessionSchema } from "../domain/log-analyst-session.js";
import { embeddingSpace } from "../entry/embedding-space.js";
import { introspectSession } from "../memory/introspect.js";
import { pubsubRoleDefinition } from "./role.js";

/**
 * Learns from one finished log-analysis session (memory/introspect.ts). Exactly-once per
 * sessionId is the store's (one transaction claims the session and applies every change), so
 * a redelivery is safe. The model is the primary one without offline fallback: rule-made
 * judgements should not quietly replace an LLM's in the memory, and nothing waits on this, so
 * a Gemini outage is a retry (redelivery), not a fallback.
 */
export const memoryIntrospector = pubsubRoleDefinition({
  name: "memoryIntrospector",
  needs: { tools: false, chat: false },
  message: LogAnalystSessionSchema,
  what: "an agent session",
  run: async (session, { runtime: rt, messageId }) => {
    if (!rt.memories) throw new ConfigError("this runtime has no memory store");
    const report = await introspectSession(session, {
      model: rt.primaryModel,
      store: rt.memories,
      embeddingSpace: embeddingSpace(rt.config, rt.primaryModel),
      logger: rt.logger,
      now: rt.now,
    });
    rt.logger.info("agent session introspected", { messageId, ...report });
  },
});
