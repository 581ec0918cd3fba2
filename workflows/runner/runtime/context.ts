import { DeadlineExceededError, tagged } from "../errors.js";
import { MAX_STEPS_PER_EXECUTION } from "../limits.js";
import type { FunctionContext } from "../stdlib/functions.js";
import { fetchTransport } from "./fetch-transport.js";
import { MemoryMeter } from "./memory.js";
import type { CallbackEndpoints, HttpTransport, LogEntry, RunOptions, StepEvent } from "./options.js";

function realSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Per-execution services: clock, deadline, sleeping, HTTP, and the observer hooks. */
export class RunContext implements FunctionContext {
  readonly env: Readonly<Record<string, string>>;
  readonly http: HttpTransport;
  readonly now: () => number;
  readonly callbacks: CallbackEndpoints | undefined;
  readonly idToken: RunOptions["idToken"];
  private readonly sleeper: (ms: number) => Promise<void>;
  private readonly deadlineMs: number | null;
  private readonly deadlineAt: number | null;
  private readonly controller = new AbortController();
  /** Variables and arguments alive in this execution, against the documented memory limit. */
  readonly memory = new MemoryMeter();
  private stepsRun = 0;
  private readonly logHook: ((entry: LogEntry) => void) | undefined;
  private readonly stepHook: ((event: StepEvent) => void) | undefined;

  constructor(options: RunOptions) {
    this.env = { ...options.env };
    this.http = options.http ?? fetchTransport;
    this.now = options.now ?? Date.now;
    this.callbacks = options.callbacks;
    this.idToken = options.idToken;
    this.sleeper = options.sleep ?? ((ms) => realSleep(ms, this.controller.signal));
    this.deadlineMs = options.deadlineMs ?? null;
    this.deadlineAt = this.deadlineMs === null ? null : this.now() + this.deadlineMs;
    this.logHook = options.onLog;
    this.stepHook = options.onStep;
  }

  /** Aborted when the execution ends or its deadline passes; in-flight work should stop. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  nowMs(): number {
    return this.now();
  }

  checkDeadline(): void {
    if (this.deadlineAt !== null && this.now() >= this.deadlineAt) this.expire();
  }

  private expire(): never {
    this.controller.abort();
    throw new DeadlineExceededError(this.deadlineMs ?? 0);
  }

  /**
   * Runs a blocking operation (sleep, HTTP) so that the execution deadline interrupts
   * it. The deadline is also re-checked afterwards because an injected clock may
   * have jumped past it while the operation "waited".
   */
  async block<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.checkDeadline();
    const pending = work(this.controller.signal);
    if (this.deadlineAt === null) return pending;
    // The race may be lost by `pending`; keep its later rejection from going unhandled.
    pending.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          try {
            this.expire();
          } catch (err) {
            reject(err);
          }
        },
        Math.max(0, (this.deadlineAt ?? 0) - this.now()),
      );
      // Only bounds work that keeps the process alive by itself (sockets, sleep timers).
      timer.unref();
    });
    try {
      const result = await Promise.race([pending, deadline]);
      this.checkDeadline();
      return result;
    } finally {
      clearTimeout(timer);
    }
  }

  sleep(ms: number): Promise<void> {
    return this.block(() => this.sleeper(ms));
  }

  log(entry: LogEntry): void {
    this.logHook?.(entry);
  }

  /** Counts one executed step against the documented per-execution limit. */
  countStep(): void {
    this.stepsRun++;
    if (this.stepsRun > MAX_STEPS_PER_EXECUTION) {
      throw tagged(
        "ResourceLimitError",
        `the execution exceeded the limit of ${MAX_STEPS_PER_EXECUTION} steps`,
      );
    }
  }

  step(event: StepEvent): void {
    this.stepHook?.(event);
  }

  /** Stops whatever is still running (e.g. a real sleep) once the execution is over. */
  dispose(): void {
    this.controller.abort();
  }
}
