import { briefRequest, type IntrospectorBrief } from "../agent/briefs.js";
import type { LogAnalystSession } from "../domain/log-analyst-session.js";
import type { Usage } from "../domain/results.js";
import { ZERO_USAGE } from "../domain/results.js";
import { EMBEDDING_DIMENSIONS, type Model } from "../model/port.js";
import { generateStructured } from "../model/structured.js";
import type { Logger } from "../platform/logger.js";
import { type RenderedPrompt, renderPrompt } from "../prompts/render.js";
import { factEmbeddingText, factText } from "./fact.js";
import { IntrospectionSchema, MAX_NEW_FACTS } from "./introspection.js";
import { judge } from "./judgement.js";
import { memoryIdFor, type RecalledMemory } from "./memory.js";
import type { IntrospectionOutcome, MemoryStore } from "./store.js";

export interface IntrospectDeps {
  /** Judges the session (generate) and embeds the text of each new fact (embed). */
  model: Model;
  store: MemoryStore;
  /** The vector space model.embed produces, recorded on every new memory. */
  embeddingSpace: string;
  logger: Logger;
  now: () => Date;
}

export interface IntrospectionReport extends IntrospectionOutcome {
  sessionId: string;
  /** Ids the model named that the session was not given; ignored. */
  ignored: string[];
  /** Named helpful and harmful at once; ignored. */
  conflicting: string[];
  usage: Usage;
}

/**
 * After a sub-agent session: ask the model what reusable knowledge it produced and which
 * of the memories it was given helped or misled it, then apply that once.
 *
 * Exactly once per session: everything this changes is written by one transaction that
 * also claims the session id (MemoryStore.applyIntrospection). A crash before it commits
 * leaves nothing behind and the redelivery starts over; a crash after it commits (before
 * Pub/Sub got the ack) makes the redelivery find the claim and change nothing. The check
 * up front only saves the model call on a redelivery; it decides nothing.
 */
export async function introspectSession(
  session: LogAnalystSession,
  deps: IntrospectDeps,
): Promise<IntrospectionReport> {
  const log = deps.logger.child({ sessionId: session.sessionId, investigationId: session.investigationId });
  const skipped = (): IntrospectionReport => ({
    sessionId: session.sessionId,
    applied: false,
    created: [],
    raised: [],
    lowered: [],
    deleted: [],
    missing: [],
    ignored: [],
    conflicting: [],
    usage: ZERO_USAGE,
  });
  if (await deps.store.wasIntrospected(session.sessionId)) {
    log.info("session already introspected; nothing to do");
    return skipped();
  }
  // Memories deleted since the session ran are not shown; naming them later is harmless.
  const recalled: RecalledMemory[] = (await deps.store.getMany(session.recalledMemoryIds)).map((m) => ({
    id: m.id,
    fact: m.fact,
  }));
  const brief: IntrospectorBrief = { role: "introspector", session, recalled, maxFacts: MAX_NEW_FACTS };
  const answer = await generateStructured(
    deps.model,
    briefRequest(brief, introspectorPrompt, session.investigationId),
    IntrospectionSchema,
  );
  const judged = judge(
    answer.value,
    session.recalledMemoryIds,
    recalled.map((m) => m.fact),
  );
  if (judged.ignored.length > 0) {
    log.warn("the introspector judged memories this session was not given; ignored", {
      ignored: judged.ignored.slice(0, 20),
      recalled: session.recalledMemoryIds,
    });
  }
  if (judged.conflicting.length > 0) {
    log.warn("memories judged both helpful and harmful; neither applied", {
      conflicting: judged.conflicting,
    });
  }
  // Each fact is found by the text derived from its own fields, never by the session's words.
  const facts = judged.facts;
  const embeddings =
    facts.length > 0
      ? await deps.model.embed({
          texts: facts.map(factEmbeddingText),
          task: "RETRIEVAL_DOCUMENT",
          dimensions: EMBEDDING_DIMENSIONS,
        })
      : [];
  const created = facts.flatMap((fact, i) => {
    const embedding = embeddings[i];
    return embedding ? [{ id: memoryIdFor(session.agent, session.sessionId, fact), fact, embedding }] : [];
  });
  const outcome = await deps.store.applyIntrospection({
    sessionId: session.sessionId,
    investigationId: session.investigationId,
    scope: session.agent,
    created,
    embeddingSpace: deps.embeddingSpace,
    helpful: judged.helpful,
    harmful: judged.harmful,
    model: answer.model,
    at: deps.now(),
  });
  if (!outcome.applied) log.info("session was introspected concurrently; this result was discarded");
  return {
    ...outcome,
    sessionId: session.sessionId,
    ignored: judged.ignored,
    conflicting: judged.conflicting,
    usage: answer.usage,
  };
}

/** The introspector's prompt, rendered from its brief alone. */
export function introspectorPrompt(brief: IntrospectorBrief): RenderedPrompt {
  return {
    system: renderPrompt("introspector.system", { maxFacts: brief.maxFacts, agent: brief.session.agent }),
    user: renderPrompt("introspector.user", {
      request: brief.session.request,
      memories: brief.recalled.map((m) => ({ id: m.id, fact: factText(m.fact) })),
      transcript: brief.session.transcript,
      answer: brief.session.answer,
    }),
  };
}
