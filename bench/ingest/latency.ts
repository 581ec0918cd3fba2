import { createOfflineModel } from "../../functions/src/offline-model/index.js";
import type { EventBus } from "../../functions/src/ports/event-bus.js";
import { scenarioDeps } from "../agent/deps.js";
import { freshProject } from "../lib/emulators.js";
import { type BenchScenario, variant } from "../lib/scenarios.js";
import { type Summary, summarize, summarizeBy } from "../lib/stats.js";
import { type PortCall, timedBus, timedStore } from "../pipeline/timed-ports.js";

/**
 * What one notification costs inside ingest, in this process against the emulators
 * (no Pub/Sub push, no HTTP): ingestNotification called one message at a time, with the
 * store and bus timed. Explains the throughput number of the push path.
 */
export interface IngestLatency {
  messages: number;
  perMessageMs: Summary;
  ports: Record<string, Summary>;
}

export async function measureIngestLatency(options: {
  scenario: BenchScenario;
  messages: number;
  bus: EventBus;
}): Promise<IngestLatency> {
  const calls: PortCall[] = [];
  const sd = await scenarioDeps({
    scenario: options.scenario,
    policy: {},
    model: createOfflineModel(),
    projectId: freshProject("ingest-lat"),
    bus: timedBus(options.bus, calls),
    wrapStore: (store) => timedStore(store, calls),
  });
  const samples: number[] = [];
  try {
    for (let i = 0; i < options.messages + 5; i++) {
      if (i === 5) calls.length = 0; // the first five warm the clients up
      const { notification } = variant(options.scenario.notification, `-ingest-latency-${i}`);
      const started = performance.now();
      await sd.ingest(notification);
      if (i >= 5) samples.push(performance.now() - started);
    }
  } finally {
    await sd.close();
  }
  return {
    messages: options.messages,
    perMessageMs: summarize(samples),
    ports: summarizeBy(
      calls,
      (c) => `${c.port}.${c.method}`,
      (c) => c.ms,
    ),
  };
}
