import { AsyncLocalStorage } from "node:async_hooks";
import type { EventBus } from "../../functions/src/ports/event-bus.js";
import type { InvestigationStore } from "../../functions/src/ports/investigation-store.js";

/** One call on a port, attributed to the investigation operation that made it. */
export interface PortCall {
  port: "store" | "bus";
  method: string;
  operation: string;
  /** Which call of the operation; "ingest" calls have -1. */
  invocation: number;
  /** performance.now() when the call started. */
  startMs: number;
  ms: number;
}

export interface OperationTag {
  operation: string;
  invocation: number;
}

/** Which operation (planner, stepExecutor, reflector, concluder) the current async chain serves. */
export const currentOperation = new AsyncLocalStorage<OperationTag>();

/**
 * Times every InvestigationStore call against the emulator. A Proxy keeps it honest: each
 * method of the real store is called as is, only wrapped in a stopwatch.
 */
export function timedStore(store: InvestigationStore, sink: PortCall[]): InvestigationStore {
  return timed(store, "store", sink);
}

export function timedBus(bus: EventBus, sink: PortCall[]): EventBus {
  return timed(bus, "bus", sink);
}

function timed<T extends object>(target: T, port: PortCall["port"], sink: PortCall[]): T {
  return new Proxy(target, {
    get(obj, key, receiver) {
      const value: unknown = Reflect.get(obj, key, receiver);
      if (typeof value !== "function" || typeof key !== "string") return value;
      return async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(obj, args);
        } finally {
          sink.push({
            port,
            method: key,
            operation: currentOperation.getStore()?.operation ?? "ingest",
            invocation: currentOperation.getStore()?.invocation ?? -1,
            startMs: started,
            ms: performance.now() - started,
          });
        }
      };
    },
  });
}
