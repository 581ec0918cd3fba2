// Conformance suite: public GoogleCloudPlatform/workflows-samples, bundled unchanged
// (see PROVENANCE.md), run on the local runner against their documented behaviour.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  InvalidWorkflowError,
  type LogEntry,
  loadWorkflow,
  runWorkflow,
  WorkflowError,
} from "../runner/index.js";
import { fakeClock } from "../runner/test-support.js";
import { SampleServer } from "./sample-server.js";
import { DOCUMENTED_REFUSALS, type Outcome, SCENARIOS } from "./scenarios.js";

const samplesDir = fileURLToPath(new URL("./samples/", import.meta.url));
const sampleText = (name: string) => readFileSync(`${samplesDir}${name}.workflows.yaml`, "utf8");
const bundled = readdirSync(samplesDir)
  .filter((f) => f.endsWith(".workflows.yaml"))
  .map((f) => f.replace(".workflows.yaml", ""))
  .sort();

/** `git hash-object` of a file: how PROVENANCE.md pins each sample to the upstream blob. */
function gitBlobId(bytes: Buffer): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

describe("bundled samples", () => {
  const provenance = readFileSync(new URL("./PROVENANCE.md", import.meta.url), "utf8");
  const pinned = new Map(
    [...provenance.matchAll(/^\| `src\/([\w]+)\.workflows\.yaml` \| `([0-9a-f]{40})` \|/gm)].map((m) => [
      m[1],
      m[2],
    ]),
  );

  it("are exactly the ones PROVENANCE.md lists, byte-identical to the upstream blobs", () => {
    assert.deepEqual([...pinned.keys()].sort(), bundled);
    for (const name of bundled) {
      const bytes = readFileSync(`${samplesDir}${name}.workflows.yaml`);
      assert.equal(gitBlobId(bytes), pinned.get(name), name);
    }
  });

  it("each have at least one scenario", () => {
    const covered = new Set(SCENARIOS.map((s) => s.sample));
    assert.deepEqual(
      bundled.filter((name) => !covered.has(name)),
      [],
    );
  });
});

describe("workflows-samples on the local runner", () => {
  const server = new SampleServer();
  before(() => server.start());
  after(() => server.stop());

  for (const scenario of SCENARIOS) {
    it(`${scenario.sample}: ${scenario.name}`, async () => {
      const workflow = loadWorkflow(sampleText(scenario.sample), { sourceName: scenario.sample });
      server.reset(structuredCloneRoutes(scenario.routes ?? {}));
      const clock = fakeClock();
      const logs: LogEntry[] = [];
      const outcome: Outcome = { seen: server.seen, sleeps: clock.sleeps, logs };
      try {
        outcome.result = await runWorkflow(workflow, scenario.args, {
          env: scenario.env ?? {},
          http: server.transport,
          now: clock.now,
          sleep: clock.sleep,
          onLog: (entry) => logs.push(entry),
        });
      } catch (err) {
        if (!(err instanceof WorkflowError)) throw err;
        outcome.error = err.payload;
      }
      assert.deepEqual(server.unrouted, [], "the sample called a URL the scenario does not serve");
      if (scenario.check) scenario.check(outcome);
      else {
        assert.equal(outcome.error, undefined, `unexpected failure: ${JSON.stringify(outcome.error)}`);
        assert.deepEqual(outcome.result, scenario.result);
      }
    });
  }
});

describe("what the samples' comments document as refused", () => {
  for (const refusal of DOCUMENTED_REFUSALS) {
    it(`${refusal.sample}: ${refusal.comment}`, () => {
      const original = sampleText(refusal.sample);
      const changed = original.replace(refusal.comment, refusal.uncommented);
      assert.notEqual(changed, original, "the commented line was not found in the sample");
      assert.throws(
        () => loadWorkflow(changed),
        (err: unknown) => err instanceof InvalidWorkflowError && refusal.reason.test(err.message),
      );
    });
  }
});

/** Route queues are consumed by the server; each run gets its own copy. */
function structuredCloneRoutes<T extends object>(routes: T): T {
  return Object.fromEntries(
    Object.entries(routes).map(([k, v]) => [k, Array.isArray(v) ? v.map((r) => ({ ...r })) : v]),
  ) as T;
}
