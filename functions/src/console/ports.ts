import type { Config } from "../config/config.js";
import type { Investigation } from "../domain/investigation.js";
import type { MemoryStore } from "../memory/store.js";
import type { Logger } from "../platform/logger.js";
import type { SpanRecord } from "../platform/trace-file.js";
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

/**
 * Where the console reads an investigation's spans (its trace id is derived from its id,
 * platform/tracing.ts). Locally the run directory's trace file (adapters/traces/file-reader.ts);
 * deployed, Cloud Trace (docs/decisions/0056: how that adapter reads, and that it is not built yet).
 */
export interface TraceReader {
  /** Where the spans come from, said on the page beside them or when there are none. */
  readonly source: string;
  /** The spans of one trace, in any order; none when the store holds none. */
  spans(traceId: string): Promise<SpanRecord[]>;
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
  traces: TraceReader;
  /** Actions go to the analyst-actions topic, the same message the Slack buttons publish. */
  bus: EventBus;
  logger: Logger;
  now: () => Date;
}
