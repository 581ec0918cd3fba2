import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DrainCoalescer } from "../../../functions/src/app/drain-coalescer.js";

/** A clock the test moves: sleeping advances it, so the intervals are exact. */
function fakeClock() {
  let t = 0;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
    },
  };
}

describe("DrainCoalescer: one drainer, at most one drain a second", () => {
  it("coalesces requests made while a drain runs into one next drain, started a full interval later", async () => {
    const clock = fakeClock();
    const drains: { at: number; finished: string[] }[] = [];
    let release: (() => void) | undefined;
    const first = new Promise<void>((resolve) => {
      release = resolve;
    });
    const coalescer = new DrainCoalescer(
      async (finished) => {
        drains.push({ at: clock.now(), finished });
        if (drains.length === 1) await first;
        return drains.length;
      },
      1_000,
      clock,
    );
    const a = coalescer.request("inv-a");
    await Promise.resolve();
    const rest = Array.from({ length: 50 }, (_, i) =>
      coalescer.request(i % 2 === 0 ? `inv-${i}` : undefined),
    );
    release?.();
    assert.equal(await a, 1);
    const reports = await Promise.all(rest);
    assert.deepEqual(new Set(reports), new Set([2]), "the 50 later requests share the second drain");
    assert.equal(drains.length, 2);
    assert.deepEqual(drains[0]?.finished, ["inv-a"]);
    assert.equal(drains[1]?.finished.length, 25);
    assert.ok((drains[1]?.at ?? 0) - (drains[0]?.at ?? 0) >= 1_000, "drains start at least a second apart");
  });

  it("counts the second from the end of a drain, where it writes the state document", async () => {
    const clock = fakeClock();
    const writes: number[] = [];
    // A slow drain (700 ms) then quick ones (100 ms), each writing when it ends.
    const coalescer = new DrainCoalescer(
      async () => {
        await clock.sleep(writes.length === 0 ? 700 : 100);
        writes.push(clock.now());
        return writes.length;
      },
      1_000,
      clock,
    );
    const first = coalescer.request();
    await Promise.resolve();
    const second = coalescer.request();
    await Promise.all([first, second]);
    await coalescer.request();
    assert.equal(writes.length, 3);
    for (let i = 1; i < writes.length; i++)
      assert.ok(
        (writes[i] as number) - (writes[i - 1] as number) >= 1_000,
        `writes ${writes[i - 1]} and ${writes[i]} are less than a second apart`,
      );
  });

  it("a failed drain rejects the requests it covered; the next request drains again", async () => {
    const clock = fakeClock();
    let calls = 0;
    const coalescer = new DrainCoalescer(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error("contention");
        return calls;
      },
      1_000,
      clock,
    );
    await assert.rejects(coalescer.request("inv-a"), /contention/);
    assert.equal(await coalescer.request("inv-a"), 2);
  });
});
