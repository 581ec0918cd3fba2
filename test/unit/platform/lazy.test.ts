import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lazy } from "../../../functions/src/platform/lazy.js";

/** The one rule for everything ferret builds on first use (platform/lazy.ts). */
describe("lazy(): built on first use, once; a failed build is not kept", () => {
  it("builds nothing until asked, then once, whoever asks and however often", async () => {
    let builds = 0;
    const value = lazy(async () => {
      builds++;
      return { id: builds };
    });
    assert.equal(builds, 0, "nothing is built before the first use");
    const [a, b] = await Promise.all([value(), value()]);
    const c = await value();
    assert.equal(builds, 1, "callers that arrive during the build share it");
    assert.equal(a, b);
    assert.equal(a, c);
  });

  it("a failed build fails the use that asked, and the next use builds again", async () => {
    let builds = 0;
    const value = lazy(async () => {
      builds++;
      if (builds === 1) throw new Error("Workflows client unavailable");
      return "client";
    });
    await assert.rejects(value(), /Workflows client unavailable/);
    assert.equal(await value(), "client");
    assert.equal(await value(), "client");
    assert.equal(builds, 2);
  });

  it("callers waiting on a build that fails all get its error; the one after them builds again", async () => {
    let builds = 0;
    let fail: (error: Error) => void = () => {};
    const value = lazy(
      () =>
        new Promise<number>((resolve, reject) => {
          builds++;
          if (builds === 1) fail = reject;
          else resolve(builds);
        }),
    );
    const waiting = [value(), value()];
    await new Promise((resolve) => setImmediate(resolve));
    fail(new Error("no channel"));
    for (const result of await Promise.allSettled(waiting)) assert.equal(result.status, "rejected");
    assert.equal(await value(), 2);
    assert.equal(builds, 2);
  });

  it("a build that throws synchronously follows the same rule", async () => {
    let builds = 0;
    const value = lazy((): string => {
      builds++;
      if (builds === 1) throw new Error("cannot read STIX bundle");
      return "intel";
    });
    await assert.rejects(value(), /cannot read STIX bundle/);
    assert.equal(await value(), "intel");
  });

  it("drop() hands back what was built without building, and the next use builds afresh", async () => {
    let builds = 0;
    const value = lazy(async () => ++builds);
    assert.equal(value.drop(), undefined, "nothing built, nothing to close");
    assert.equal(builds, 0);
    assert.equal(await value(), 1);
    assert.equal(await value.drop(), 1);
    assert.equal(value.drop(), undefined);
    assert.equal(await value(), 2);
  });
});
