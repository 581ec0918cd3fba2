/**
 * Runs async work one at a time per key within this process.
 *
 * Firestore transactions stay correct without it, but two transactions of the same process
 * that read the same investigation contend for its lock: the Firestore emulator resolves
 * that only through a ~2 s lock timeout, and production through aborts and backoff. Parallel
 * steps of one wave land in the same process whenever an instance serves concurrent
 * requests, so queueing them here is cheaper than letting Firestore arbitrate.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release: () => void = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
