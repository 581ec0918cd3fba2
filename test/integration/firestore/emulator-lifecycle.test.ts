import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ConfigError } from "../../../functions/src/domain/errors.js";
import { isHealthy, startEmulators } from "../../../functions/src/local/emulators.js";
import { freePort } from "../../../functions/src/local/free-port.js";
import { ensureEmulators, type TestEmulators } from "../../helpers/emulators.js";

let shared: TestEmulators;
const logDirs: string[] = [];
const logDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "ferret-lifecycle-"));
  logDirs.push(dir);
  return dir;
};

/** Running processes whose command line matches; pgrep exits 1 when there are none. */
function pgrep(pattern: string): string[] {
  try {
    return execFileSync("pgrep", ["-f", pattern], { encoding: "utf8" }).trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

before(async () => {
  shared = await ensureEmulators();
});

after(() => {
  for (const dir of logDirs) rmSync(dir, { recursive: true, force: true });
});

test("a started Firestore emulator answers, and stop() leaves no java process behind", async () => {
  // env: {} so the shared emulator from the environment is not reused.
  const stack = await startEmulators({
    firestore: true,
    pubsub: false,
    projectId: "lifecycle",
    logDir: logDir(),
    env: {},
  });
  const handle = stack.firestore!;
  const port = handle.host.split(":")[1];
  assert.equal(handle.reused, false);
  assert.match(handle.host, /^127\.0\.0\.1:\d+$/);
  assert.ok(handle.startMs > 0);
  assert.equal(stack.env.FIRESTORE_EMULATOR_HOST, handle.host);
  assert.equal(stack.env.METADATA_SERVER_DETECTION, "none");
  assert.equal(stack.env.GOOGLE_CLOUD_PROJECT, "lifecycle");
  assert.equal(stack.env.PUBSUB_EMULATOR_HOST, undefined);
  assert.equal(await isHealthy("firestore", handle.host), true);
  const javaPattern = `cloud-firestore-emulator.*--port=${port}`;
  assert.equal(pgrep(javaPattern).length > 0, true, "the java emulator should be running");

  await stack.stop();
  assert.deepEqual(pgrep(javaPattern), [], "no emulator process may survive stop()");
  assert.equal(await isHealthy("firestore", handle.host), false);
  await stack.stop(); // idempotent
});

test("emulators named by the environment are reused, and stop() leaves them running", async () => {
  const stack = await startEmulators({
    projectId: "reuse",
    logDir: logDir(),
    env: { FIRESTORE_EMULATOR_HOST: shared.firestoreHost, PUBSUB_EMULATOR_HOST: shared.pubsubHost },
  });
  assert.equal(stack.firestore?.reused, true);
  assert.equal(stack.pubsub?.reused, true);
  assert.equal(stack.env.FIRESTORE_EMULATOR_HOST, shared.firestoreHost);
  assert.equal(stack.env.PUBSUB_EMULATOR_HOST, shared.pubsubHost);
  await stack.stop();
  assert.equal(await isHealthy("firestore", shared.firestoreHost), true);
  assert.equal(await isHealthy("pubsub", shared.pubsubHost), true);
});

test("an environment variable pointing at nothing is an error, not a silent second emulator", async () => {
  const dead = `127.0.0.1:${await freePort()}`;
  await assert.rejects(
    startEmulators({
      firestore: true,
      pubsub: false,
      projectId: "dead",
      logDir: logDir(),
      env: { FIRESTORE_EMULATOR_HOST: dead },
    }),
    (e: unknown) => e instanceof ConfigError && e.message.includes(`FIRESTORE_EMULATOR_HOST=${dead}`),
  );
});

test("a missing gcloud is reported as such", async () => {
  await assert.rejects(
    startEmulators({
      pubsub: false,
      projectId: "x",
      logDir: logDir(),
      env: {},
      gcloud: "/nonexistent/gcloud",
    }),
    (e: unknown) => e instanceof ConfigError && /could not be started.*ENOENT/s.test(e.message),
  );
});

test("an emulator that never answers times out with the tail of its log, and its process group is killed", async () => {
  const dir = logDir();
  const marker = `ferret-fake-emulator-${process.pid}-${Date.now()}`;
  const fake = join(dir, "fake-gcloud.sh");
  // Logs like gcloud, then waits in a child process, as gcloud's java child would.
  writeFileSync(
    fake,
    `#!/bin/sh\necho "starting fake emulator"\necho "still not listening"\nsh -c 'sleep 60; echo ${marker}'\n`,
  );
  chmodSync(fake, 0o755);
  const started = Date.now();
  let runningMeanwhile = 0;
  const peek = setTimeout(() => {
    runningMeanwhile = pgrep(marker).length;
  }, 800);
  await assert.rejects(
    startEmulators({ pubsub: false, projectId: "x", logDir: dir, env: {}, gcloud: fake, timeoutMs: 1_500 }),
    (e: unknown) =>
      e instanceof ConfigError &&
      /did not answer .* within 1500 ms/.test(e.message) &&
      e.message.includes("still not listening"),
  );
  clearTimeout(peek);
  assert.ok(Date.now() - started < 10_000);
  assert.equal(runningMeanwhile, 1, "the fake emulator's child should have been running");
  assert.deepEqual(pgrep(marker), [], "the fake emulator's children must be killed");
});
