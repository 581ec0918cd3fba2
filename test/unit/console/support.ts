import { loadConfig } from "../../../functions/src/config/config.js";
import type { ConsoleDeps } from "../../../functions/src/console/ports.js";
import {
  EMPTY_GOVERNOR_STATE,
  type GovernorState,
  type QueueEntry,
} from "../../../functions/src/domain/governor.js";
import type { Investigation, InvestigationEvent } from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import type { Reflection } from "../../../functions/src/domain/reflection.js";
import type { StepResult } from "../../../functions/src/domain/results.js";
import type { Memory } from "../../../functions/src/memory/memory.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { SpanRecord } from "../../../functions/src/platform/trace-file.js";
import type { GovernorStore } from "../../../functions/src/ports/governor-store.js";

/** In-memory stand-ins for what the console reads, and a bus that records what it publishes. */
export interface ConsoleWorld {
  investigations: Investigation[];
  results?: Record<string, StepResult[]>;
  reflections?: Record<string, Reflection[]>;
  events?: Record<string, InvestigationEvent[]>;
  claims?: Record<string, Record<string, string>>;
  memories?: Memory[];
  queue?: QueueEntry[];
  governorState?: GovernorState;
  slackChannel?: string;
  /** Every span the trace store holds, of any trace. */
  spans?: SpanRecord[];
}

export const NOW = new Date("2024-05-03T12:00:00.000Z");

export function fakeDeps(world: ConsoleWorld): ConsoleDeps & {
  published: { topic: string; data: JsonObject; attributes?: Record<string, string> }[];
  deleted: string[];
} {
  const published: { topic: string; data: JsonObject; attributes?: Record<string, string> }[] = [];
  const deleted: string[] = [];
  const memories = [...(world.memories ?? [])];
  const byUpdated = () => [...world.investigations].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  const unused = () => {
    throw new Error("not used by the console");
  };
  const governor: GovernorStore = {
    group: unused,
    enqueue: unused,
    drain: unused,
    unannounced: unused,
    markAnnounced: unused,
    state: async () => world.governorState ?? EMPTY_GOVERNOR_STATE,
    queue: async (limit) => (world.queue ?? []).slice(0, limit),
    queueDepth: async () => (world.queue ?? []).length,
    aheadOf: unused,
    relatedCount: unused,
    listRelated: unused,
    topGroups: async () => [],
  };
  const config = loadConfig({ env: world.slackChannel ? { FERRET_SLACK_CHANNEL: world.slackChannel } : {} });
  return {
    published,
    deleted,
    config,
    store: {
      get: async (id) => world.investigations.find((i) => i.id === id),
      listStepResults: async (id) => world.results?.[id] ?? [],
      listReflections: async (id) => world.reflections?.[id] ?? [],
      listEvents: async (id) => world.events?.[id] ?? [],
      readClaim: async (scope, key) => world.claims?.[`${scope}/${key}`],
      findRelated: async (q) =>
        byUpdated()
          .filter(
            (i) =>
              (q.iocValue !== undefined && i.iocValues.includes(q.iocValue)) ||
              (q.principal !== undefined && i.finding.access?.principalEmail === q.principal) ||
              (q.resourceName !== undefined && i.finding.resource.name === q.resourceName),
          )
          .slice(0, q.limit),
      listChangedSince: async (q) =>
        world.investigations
          .filter((i) => i.status === q.status && i.updatedAt > q.updatedAfter)
          .slice(0, q.limit),
    },
    recent: {
      recent: async (q) =>
        byUpdated()
          .filter((i) => i.updatedAt > q.updatedAfter)
          .slice(0, q.limit),
    },
    memories: {
      list: async ({ limit }) => [...memories].sort((a, b) => b.score - a.score).slice(0, limit),
      get: async (id) => memories.find((m) => m.id === id),
      delete: async (id) => {
        const at = memories.findIndex((m) => m.id === id);
        if (at < 0) return false;
        memories.splice(at, 1);
        deleted.push(id);
        return true;
      },
    },
    governor,
    traces: {
      source: "the test's spans",
      spans: async (traceId) => (world.spans ?? []).filter((s) => s.traceId === traceId),
    },
    bus: {
      publish: async (topic, data, attributes) => {
        published.push({ topic, data, ...(attributes ? { attributes } : {}) });
        return `msg-${published.length}`;
      },
    },
    logger: silentLogger,
    now: () => NOW,
  };
}

export function memory(overrides: Partial<Memory> = {}): Memory {
  return {
    id: "mem_0123456789abcdef01234567",
    scope: "log_analyst",
    fact: {
      kind: "column_format",
      table: "cloudaudit_googleapis_com_activity",
      column: "protopayload_auditlog.methodName",
      format: "api_method",
    },
    embedding: new Array(768).fill(0),
    embeddingSpace: "offline-hash-v1",
    score: 2,
    useCount: 3,
    source: { sessionId: "sess-1", investigationId: "inv-0123456789abcdef01234567" },
    createdAt: "2024-05-01T10:03:00.000Z",
    updatedAt: "2024-05-02T09:00:00.000Z",
    lastUsedAt: "2024-05-02T09:00:00.000Z",
    ...overrides,
  };
}
