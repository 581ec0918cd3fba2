export type Settled = { ok: true } | { ok: false; error: unknown };

/**
 * Runs tasks with at most `limit` in flight, starting queued tasks in order as slots
 * free up. Every task runs to completion even if others fail (continueAll).
 */
export async function runPool(tasks: readonly (() => Promise<void>)[], limit: number): Promise<Settled[]> {
  const results: Settled[] = new Array(tasks.length);
  let nextIndex = 0;
  const worker = async (): Promise<void> => {
    while (nextIndex < tasks.length) {
      const i = nextIndex++;
      const task = tasks[i];
      if (!task) continue;
      try {
        await task();
        results[i] = { ok: true };
      } catch (error) {
        results[i] = { ok: false, error };
      }
    }
  };
  const workers = Array.from({ length: Math.min(limit, tasks.length) }, worker);
  await Promise.all(workers);
  return results;
}
