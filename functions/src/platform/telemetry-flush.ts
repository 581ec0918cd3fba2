/**
 * Sending what the deployed telemetry has batched (platform/telemetry.ts), in a module of its
 * own so the role handlers can call it without the OpenTelemetry SDK in their cold import.
 */
interface Flushable {
  forceFlush(): Promise<void>;
}

let flushables: readonly Flushable[] = [];

/** Called once by platform/telemetry.ts when it registers the deployed providers. */
export function flushOnRequestEnd(providers: readonly Flushable[]): void {
  flushables = providers;
}

const FLUSH_LIMIT_MS = 2_000;

/**
 * Sends what is batched before a function answers: Cloud Run throttles an instance's CPU
 * between requests, so a batch left for later may wait for the next request. Bounded and
 * never throws: telemetry must not fail or stall the work it watches.
 */
export async function flushTelemetry(): Promise<void> {
  if (flushables.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(flushables.map((f) => f.forceFlush())),
    new Promise((resolve) => {
      timer = setTimeout(resolve, FLUSH_LIMIT_MS);
    }),
  ]);
  clearTimeout(timer);
}
