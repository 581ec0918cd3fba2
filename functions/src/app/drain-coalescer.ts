/**
 * One drainer per process, at most one drain a second. Every drain writes the governor's
 * state document once (at its end), and Firestore sustains about one write a second on a
 * document, so the interval runs from the end of one drain to the start of the next: counted
 * from starts, a slow drain followed by a quick one wrote twice within a second. In a
 * storm ingest asks for a drain per finding and the notifier per finished investigation, so
 * the requests are coalesced: a request waits for the next drain that starts after it (with
 * every finished investigation named by the requests it covers), and drains start at least
 * `minIntervalMs` apart. Deployed, the sweep function runs one instance (terraform
 * `functions.sweep.max_instances = 1`), which makes this the only drainer (decision 0039).
 */
export class DrainCoalescer<R> {
  private waiting: {
    finished: Set<string>;
    settle: Array<{ resolve: (r: R) => void; reject: (e: unknown) => void }>;
  } = { finished: new Set(), settle: [] };
  private running = false;
  private lastEnd = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly drain: (finished: string[]) => Promise<R>,
    private readonly minIntervalMs = 1_000,
    private readonly clock: { now: () => number; sleep: (ms: number) => Promise<void> } = {
      now: () => Date.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    },
  ) {}

  /** Resolves with the report of a drain that started after this call (and freed `finished`, when given). */
  request(finished?: string): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (finished) this.waiting.finished.add(finished);
      this.waiting.settle.push({ resolve, reject });
      if (!this.running) void this.loop();
    });
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.settle.length > 0) {
        const wait = this.lastEnd + this.minIntervalMs - this.clock.now();
        if (wait > 0) await this.clock.sleep(wait);
        const batch = this.waiting;
        this.waiting = { finished: new Set(), settle: [] };
        try {
          const report = await this.drain([...batch.finished]);
          for (const s of batch.settle) s.resolve(report);
        } catch (error) {
          // Each request's message is redelivered by Pub/Sub; the finished ids come back with it.
          for (const s of batch.settle) s.reject(error);
        } finally {
          this.lastEnd = this.clock.now();
        }
      }
    } finally {
      this.running = false;
    }
  }
}
