import { z } from "zod";
import { ingestNotification } from "../app/ingest.js";
import { recordInvestigationSpan } from "../platform/tracing.js";
import { pubsubRoleDefinition } from "./role.js";

/**
 * Every message on the findings topic is an SCC finding: parsed → policy → dedup → an
 * investigation in Firestore → a workflow execution (app/ingest.ts). Anything else (including
 * a message carrying the retired `ferret-task` attribute) is malformed and dead-lettered.
 * Housekeeping is the `sweep` role's.
 */
export const ingest = pubsubRoleDefinition({
  name: "ingest",
  needs: { tools: false, chat: false },
  // A notification, a continuous-export row or a bare finding: which one, and whether it is an
  // SCC finding at all, is parseNotification's to say (domain/finding/finding.ts), with its own reasons.
  message: z.unknown(),
  what: "an SCC finding",
  run: async (notification, { runtime, messageId, ingestDeps }) => {
    const started = Date.now();
    const outcome = await ingestNotification(notification, ingestDeps());
    runtime.logger.info("notification ingested", { messageId, ...outcome });
    if ("investigationId" in outcome && outcome.investigationId)
      recordInvestigationSpan(
        outcome.investigationId,
        "ingest.admit_finding",
        { "ferret.role": "ingest", "ferret.ingest_outcome": outcome.outcome },
        started,
        Date.now(),
      );
  },
});
