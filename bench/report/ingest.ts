import type { IngestLatency } from "../ingest/latency.js";
import type { IngestSection } from "../ingest/throughput.js";
import { ms, table } from "../lib/table.js";

export function printIngest(i: IngestSection, latency: IngestLatency | undefined): string {
  const phases = table(
    [
      "phase",
      "messages",
      "unique",
      "seconds",
      "msgs/s",
      "unique/s",
      "created",
      "launched",
      "dups ignored",
      "retried",
    ],
    [
      [
        "unique findings",
        i.unique.messages,
        i.unique.unique,
        i.unique.seconds,
        i.unique.messagesPerSecond,
        i.unique.uniquePerSecond,
        i.unique.created,
        i.unique.launched,
        i.unique.duplicatesIgnored,
        i.unique.retried,
      ],
      [
        `each delivered ${i.duplicates.deliveriesPerFinding}×`,
        i.duplicates.messages,
        i.duplicates.unique,
        i.duplicates.seconds,
        i.duplicates.messagesPerSecond,
        i.duplicates.uniquePerSecond,
        i.duplicates.created,
        i.duplicates.launched,
        i.duplicates.duplicatesIgnored,
        i.duplicates.retried,
      ],
    ],
  );
  const lines = [
    "4. INGEST THROUGHPUT — Pub/Sub emulator push → ingest (functions-framework) → Firestore, queued",
    "   → the sweep's drainer launches each (a second functions-framework process on the same 2 CPUs);",
    "   seconds time ingest's acceptance; launched is counted once the drainer has caught up",
    "",
    phases,
  ];
  if (latency) {
    lines.push(
      "",
      `   one message in process, sequentially: median ${ms(latency.perMessageMs.median)}, p95 ${ms(latency.perMessageMs.p95)} (n=${latency.messages})`,
      table(
        ["port method", "calls", "median", "p95"],
        Object.entries(latency.ports).map(([k, s]) => [k, s.n, ms(s.median), ms(s.p95)]),
      ),
    );
  }
  return lines.join("\n");
}
