import type { CloudEvent } from "@google-cloud/functions-framework";
import { autoCloseIfAllowed } from "../app/auto-close.js";
import { announceFinished } from "../app/governor.js";
import { ingestNotification } from "../app/ingest.js";
import { AgentSessionSchema } from "../domain/agent-session.js";
import { ConfigError, errorMessage, FerretError, InvalidInputError } from "../domain/errors.js";
import { InvestigationEventSchema } from "../domain/investigation.js";
import { introspectSession } from "../memory/introspect.js";
import { handleInvestigationEvent } from "../notify/notifier.js";
import { redactError } from "../platform/logger.js";
import { deadLetterTopic, TOPICS, type TopicName } from "../platform/topics.js";
import { embeddingSpace } from "./embedding-space.js";
import { decodePubSubJson, PubSubEventDataSchema } from "./pubsub-message.js";
import { ingestDepsFor, type Runtime } from "./runtime.js";

/**
 * Pub/Sub-triggered functions. Returning acks the message; throwing nacks it and Pub/Sub
 * redelivers. Only retryable failures throw: a message that can never succeed (malformed,
 * invalid) is published to the topic's dead-letter topic with the reason and acked, so it
 * is kept for inspection and never retried forever.
 */
async function deadLetter(
  rt: Runtime,
  topic: TopicName,
  event: CloudEvent<unknown>,
  reason: string,
): Promise<void> {
  const envelope = PubSubEventDataSchema.safeParse(event.data);
  const message = envelope.success ? envelope.data.message : undefined;
  await rt.bus.publish(
    deadLetterTopic(topic) as TopicName,
    {
      reason,
      sourceTopic: topic,
      originalMessageId: message?.messageId ?? event.id ?? null,
      originalData: (message?.data ?? "").slice(0, 1_000_000),
    },
    { reason: reason.slice(0, 1_000), sourceTopic: topic },
  );
  rt.logger.error("message dead-lettered", { topic, reason, messageId: message?.messageId ?? event.id });
}

export async function settle(
  rt: Runtime,
  topic: TopicName,
  event: CloudEvent<unknown>,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof FerretError && error.retryable) {
      rt.logger.warn("retryable failure; Pub/Sub will redeliver", { topic, error: errorMessage(error) });
      throw redactError(error);
    }
    if (error instanceof FerretError) return deadLetter(rt, topic, event, `${error.code}: ${error.message}`);
    // Unexpected errors are retried: they may be transient, and Pub/Sub's own
    // max-delivery dead-lettering bounds the attempts.
    rt.logger.error("unexpected failure", { topic, error: errorMessage(error) });
    throw redactError(error);
  }
}

const FINISHED: ReadonlySet<string> = new Set(["concluded", "needs_human", "failed"]);

/**
 * Every message on the findings topic is an SCC notification: anything else (including a
 * message carrying the retired `ferret-task` attribute) is malformed and dead-lettered.
 * Housekeeping is the `sweep` function's (sweep-function.ts).
 */
export function ingestFunction(runtime: () => Promise<Runtime>) {
  return async (event: CloudEvent<unknown>): Promise<void> => {
    const rt = await runtime();
    await settle(rt, TOPICS.findings, event, async () => {
      const { json, messageId } = decodePubSubJson(event.data);
      const outcome = await ingestNotification(json, ingestDepsFor(rt));
      rt.logger.info("notification ingested", { messageId, ...outcome });
    });
  };
}

export function notifierFunction(runtime: () => Promise<Runtime>) {
  return async (event: CloudEvent<unknown>): Promise<void> => {
    const rt = await runtime();
    await settle(rt, TOPICS.investigationEvents, event, async () => {
      const { json } = decodePubSubJson(event.data);
      const parsed = InvestigationEventSchema.safeParse(json);
      if (!parsed.success) throw new InvalidInputError("not an investigation event");
      // Before Slack, so a Slack outage does not hold the queue: the sweep function frees the
      // slot and starts the next queued finding on this request.
      if (FINISHED.has(parsed.data.type) && rt.governor)
        await announceFinished(rt.bus, parsed.data.investigationId);
      await handleInvestigationEvent(parsed.data, {
        store: rt.store,
        sink: rt.chat,
        logger: rt.logger,
        policy: { staleAfterMs: rt.config.slack.claimStaleSeconds * 1_000 },
        board: { sccButtons: rt.config.scc.writeback && rt.config.scc.analystMuteAndState },
        approvalTimeoutSeconds: rt.config.approvals.timeoutSeconds,
      });
      if (parsed.data.type === "concluded" && rt.scc && rt.config.scc.autoClose) {
        const inv = await rt.store.require(parsed.data.investigationId);
        const results = await rt.store.listStepResults(inv.id);
        await autoCloseIfAllowed(inv, results, {
          config: rt.config,
          scc: rt.scc,
          logger: rt.logger,
          now: rt.now,
        });
      }
    });
  };
}

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
