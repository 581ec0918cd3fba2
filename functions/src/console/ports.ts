import type { Config } from "../config/config.js";
import type { Investigation } from "../domain/investigation.js";
import type { MemoryStore } from "../memory/store.js";
import type { Logger } from "../platform/logger.js";
import type { EventBus } from "../ports/event-bus.js";
import type { GovernorStore } from "../ports/governor-store.js";
import type { InvestigationStore } from "../ports/investigation-store.js";

/**
 * The one read the console needs that the investigation store does not offer: the latest
 * changed investigations, newest first. A single-field order on `updatedAt` (Firestore's
 * automatic index), so no composite index is needed.
 */
export interface RecentInvestigations {
  recent(query: { updatedAfter: string; limit: number }): Promise<Investigation[]>;
}

/** What the console reads and the operations it calls; built by ./compose.ts, doubles in test/. */
export interface ConsoleDeps {
  config: Pick<Config, "governor" | "slack">;
  store: Pick<
    InvestigationStore,
    | "get"
    | "listStepResults"
    | "listReflections"
    | "listEvents"
    | "readClaim"
    | "findRelated"
    | "listChangedSince"
  >;
  recent: RecentInvestigations;
  memories: Pick<MemoryStore, "list" | "get" | "delete">;
  governor: GovernorStore;
  /** Actions go to the analyst-actions topic, the same message the Slack buttons publish. */
  bus: EventBus;
  logger: Logger;
  now: () => Date;
}
