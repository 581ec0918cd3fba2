/**
 * Cloud Run's admission of requests to a service at its instance cap, for the local stack.
 *
 * A function runs on at most `max_instances` instances, each taking at most its request
 * concurrency at once (1 for Cloud Functions 2nd gen unless Terraform sets
 * max_instance_request_concurrency), so at most max_instances × concurrency requests are served
 * at once. "When you set a maximum instances limit … incoming requests can be queued for up to
 * 10 seconds. During this time window, if an instance finishes processing requests, it becomes
 * available to process queued requests. If no instances become available during the window,
 * the request fails with a 429 error code"
 * (https://cloud.google.com/run/docs/about-instance-autoscaling#exceeding-max-instances).
 *
 * Locally one functions-framework process serves every request, so the gate stands for the
 * instances: `slots` requests pass at once, the next ones wait in arrival order, and one that
 * waited `queueMs` without a free slot is refused. A slot is held until the function has
 * answered, not until the caller gave up: a Cloud Run instance keeps working on a request
 * whose client went away.
 */

/** Cloud Run's queueing window at the instance cap (the page above). */
export const CLOUD_RUN_QUEUE_MS = 10_000;

export interface GateStats {
  /** Requests that got a slot (at once or after waiting). */
  admitted: number;
  /** Requests that had to wait for a slot. */
  queued: number;
  /** Requests refused after waiting the whole window (429). */
  refused: number;
  /** The most requests served at once. */
  peakInFlight: number;
  /** The longest any request waited for a slot, in ms. */
  longestWaitMs: number;
}

interface Waiter {
  since: number;
  admit: (release: () => void) => void;
  timer: NodeJS.Timeout;
}

export class InstanceGate {
  private inFlight = 0;
  private readonly waiting: Waiter[] = [];
  private readonly counts: GateStats = {
    admitted: 0,
    queued: 0,
    refused: 0,
    peakInFlight: 0,
    longestWaitMs: 0,
  };

  constructor(
    readonly slots: number,
    readonly queueMs: number = CLOUD_RUN_QUEUE_MS,
  ) {
    if (!Number.isInteger(slots) || slots < 1)
      throw new RangeError(`slots must be a whole number ≥ 1, got ${slots}`);
    if (!(queueMs >= 0)) throw new RangeError(`queueMs must be ≥ 0, got ${queueMs}`);
  }

  /**
   * A slot: resolves with its release once the request may be served, or with undefined when
   * it waited the whole window (answer 429). Call the release exactly once, when the answer is done.
   */
  acquire(): Promise<(() => void) | undefined> {
    if (this.inFlight < this.slots && this.waiting.length === 0) return Promise.resolve(this.take(0));
    this.counts.queued += 1;
    return new Promise((resolve) => {
      const since = Date.now();
      const waiter: Waiter = {
        since,
        admit: resolve,
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          this.counts.refused += 1;
          this.counts.longestWaitMs = Math.max(this.counts.longestWaitMs, Date.now() - since);
          resolve(undefined);
        }, this.queueMs),
      };
      this.waiting.push(waiter);
    });
  }

  stats(): GateStats {
    return { ...this.counts };
  }

  private take(waitedMs: number): () => void {
    this.inFlight += 1;
    this.counts.admitted += 1;
    this.counts.peakInFlight = Math.max(this.counts.peakInFlight, this.inFlight);
    this.counts.longestWaitMs = Math.max(this.counts.longestWaitMs, waitedMs);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      this.next();
    };
  }

  /** The longest-waiting request gets the slot that just came free. */
  private next(): void {
    const waiter = this.waiting.shift();
    if (!waiter) return;
    clearTimeout(waiter.timer);
    waiter.admit(this.take(Date.now() - waiter.since));
  }
}
