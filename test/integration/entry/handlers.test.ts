import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { waitFor } from "../../helpers/wait-for.js";

/**
 * The entry points in functions/src/index.ts, served by functions-framework's own test
 * server (the framework's routing, body parsing and Pub/Sub push conversion), wired to each
 * other through the real workflow YAML on the local executions service.
 */
const projectId = uniqueProjectId("handlers");
const workDir = mkdtempSync(join(tmpdir(), "ferret-handlers-"));
const chatFile = join(workDir, "chat.jsonl");
const scenarioDir = join(process.cwd(), "examples/scenarios/cryptomining");

type Modules = {
  testing: typeof import("@google-cloud/functions-framework/testing");
  service: typeof import("../../../workflows/local-executions/service.js");
  store: typeof import("../../../functions/src/adapters/firestore/investigation-store.js");
  client: typeof import("../../../functions/src/adapters/firestore/client.js");
  finding: typeof import("../../../functions/src/domain/finding/finding.js");
  investigation: typeof import("../../../functions/src/domain/investigation.js");
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function post(
  url: string,
  body: unknown,
  path = "/",
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe("function entry points under functions-framework", { timeout: 180_000 }, () => {
  let m: Modules;
  const servers: Server[] = [];
  const urls: Record<string, string> = {};
  let executions: InstanceType<Modules["service"]["LocalExecutionsService"]>;
  let notification: { finding: { name: string; eventTime: string } };
  let id: string;

  before(async () => {
    await ensureEmulators();
    Object.assign(process.env, {
      GOOGLE_CLOUD_PROJECT: projectId,
      FERRET_MODEL_PROVIDER: "offline",
      FERRET_DUCKDB_DIR: join(scenarioDir, "logs"),
      FERRET_STIX_BUNDLE: join(scenarioDir, "intel/bundle.json"),
      FERRET_CHAT_FILE: chatFile,
      FERRET_LOG_LEVEL: "ERROR",
    });
    m = {
      testing: await import("@google-cloud/functions-framework/testing"),
      service: await import("../../../workflows/local-executions/service.js"),
      store: await import("../../../functions/src/adapters/firestore/investigation-store.js"),
      client: await import("../../../functions/src/adapters/firestore/client.js"),
      finding: await import("../../../functions/src/domain/finding/finding.js"),
      investigation: await import("../../../functions/src/domain/investigation.js"),
    };
    await import("../../../functions/src/index.js");
    for (const name of [
      "planner",
      "stepExecutor",
      "reflector",
      "concluder",
      "compressor",
      "ingest",
      "sweep",
      "notifier",
    ]) {
      const server = m.testing.getTestServer(name);
      servers.push(server);
      urls[name] = await listen(server);
    }
    executions = new m.service.LocalExecutionsService({
      yamlPath: join(process.cwd(), "workflows/investigate.yaml"),
      env: {
        FERRET_PLANNER_URL: urls.planner as string,
        FERRET_STEP_EXECUTOR_URL: urls.stepExecutor as string,
        FERRET_REFLECTOR_URL: urls.reflector as string,
        FERRET_CONCLUDER_URL: urls.concluder as string,
        FERRET_COMPRESSOR_URL: urls.compressor as string,
      },
    });
    const executionsServer = await executions.listen(0);
    process.env.FERRET_WORKFLOWS_URL = `http://127.0.0.1:${(executionsServer.address() as AddressInfo).port}`;
    const { ensureTopology } = await import("../../../functions/src/local/pubsub-setup.js");
    await ensureTopology(projectId, {
      pushEndpoints: {
        "investigation-events": `${urls.notifier}/projects/${projectId}/topics/investigation-events`,
        // Ingest queues every finding and asks the sweep's drainer to launch it (decision 0039).
        "sweep-requests": `${urls.sweep}/projects/${projectId}/topics/sweep-requests`,
      },
      maxDeliveryAttempts: 5,
    });
    notification = JSON.parse(readFileSync(join(scenarioDir, "notification.json"), "utf8"));
    const finding = m.finding.normalizeNotification(m.finding.parseNotification(notification));
    id = m.investigation.investigationIdFor(finding.name, finding.eventTime);
  });

  after(async () => {
    await executions?.close();
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  test("HTTP functions refuse what the workflow would never send", async () => {
    const get = await fetch(urls.planner as string);
    assert.equal(get.status, 405);
    const bad = await post(urls.planner as string, { investigationId: "nope" });
    assert.equal(bad.status, 400);
    assert.equal((bad.body.error as { code: string }).code, "invalid_input");
    const unknown = await post(urls.planner as string, { investigationId: "inv-000000000000000000000000" });
    assert.equal(unknown.status, 404);
    const badMode = await post(urls.concluder as string, { investigationId: id, mode: "delete" });
    assert.equal(badMode.status, 400);
  });

  test("a Pub/Sub push to ingest starts the workflow, which drives the HTTP functions to a conclusion", async () => {
    const data = Buffer.from(JSON.stringify(notification)).toString("base64");
    const pushed = await post(
      urls.ingest as string,
      {
        message: { data, messageId: "m-1", publishTime: new Date().toISOString() },
        subscription: `projects/${projectId}/subscriptions/s`,
      },
      `/projects/${projectId}/topics/scc-findings`,
    );
    assert.ok(pushed.status >= 200 && pushed.status < 300, `ingest answered ${pushed.status}`);
    await waitFor("the sweep's drainer to start the execution", async () =>
      executions.list().length > 0 ? true : undefined,
    );
    await executions.idle();
    const store = new m.store.FirestoreInvestigationStore(m.client.createFirestore({ projectId }));
    const inv = await store.require(id);
    assert.equal(inv.status, "concluded");
    assert.equal(inv.conclusion?.verdict, "true_positive");
    assert.equal(executions.list().length, 1);
    assert.equal(executions.list()[0]?.state, "SUCCEEDED");
    const indexed = await m.client
      .createFirestore({ projectId })
      .collection("findingEmbeddings")
      .doc(id)
      .get();
    assert.ok(indexed.exists, "the concluded finding is indexed for similar-finding search");
  });

  test("repeated step and reflector calls return the first outcome and change nothing", async () => {
    const store = new m.store.FirestoreInvestigationStore(m.client.createFirestore({ projectId }));
    const before = await store.require(id);
    const firstStep = before.plan?.steps.find((s) => s.status === "done");
    assert.ok(firstStep, "a finished step exists");
    const again = await post(urls.stepExecutor as string, { investigationId: id, stepId: firstStep.id });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { stepId: firstStep.id, status: "done", executed: false, held: [] });
    const advanced = await post(urls.reflector as string, {
      investigationId: id,
      wave: 1,
      stepIds: [firstStep.id],
    });
    assert.equal(advanced.status, 200);
    const finished = await post(urls.concluder as string, {
      investigationId: id,
      mode: "conclude",
      reason: "again",
    });
    assert.equal(finished.body.status, "concluded");
    const afterwards = await store.require(id);
    assert.equal(afterwards.eventSeq, before.eventSeq, "no new events");
    assert.equal((await store.listReflections(id)).length, afterwards.counters.waves);
    assert.deepEqual(afterwards.conclusion, before.conclusion);
  });

  test("the notifier renders events into one thread in the chat file", async () => {
    for (
      let i = 0;
      i < 50 && !(existsSync(chatFile) && readFileSync(chatFile, "utf8").includes("true_positive"));
      i++
    ) {
      await sleep(100);
    }
    // The verdict post is followed by the root's edit into the card: wait until the file is still.
    for (let i = 0, n = -1; i < 50; i++) {
      const count = readFileSync(chatFile, "utf8").trim().split("\n").length;
      if (count === n) break;
      n = count;
      await sleep(300);
    }
    const store = new m.store.FirestoreInvestigationStore(m.client.createFirestore({ projectId }));
    const events = await store.listEvents(id);
    const last = events.at(-1);
    assert.ok(last);
    // Deliver the final event again, the way a Pub/Sub redelivery would: nothing new is posted.
    const linesBefore = readFileSync(chatFile, "utf8").trim().split("\n").length;
    const data = Buffer.from(JSON.stringify(last)).toString("base64");
    const res = await post(
      urls.notifier as string,
      { message: { data, messageId: "redelivered" }, subscription: `projects/${projectId}/subscriptions/n` },
      `/projects/${projectId}/topics/investigation-events`,
    );
    assert.ok(res.status >= 200 && res.status < 300);
    const lines = readFileSync(chatFile, "utf8").trim().split("\n");
    assert.equal(lines.length, linesBefore, "a redelivered event is not posted twice");
    // The root is also edited in place (chat.update) into the verdict card; the thread is the posts.
    const posts = lines
      .map((l) => JSON.parse(l) as { method: string; args: { thread_ts?: string }; ts: string })
      .filter((p) => p.method === "chat.postMessage");
    assert.ok(
      lines.some((l) => (JSON.parse(l) as { method: string }).method === "chat.update"),
      "the root became the verdict card",
    );
    const roots = posts.filter((p) => p.args.thread_ts === undefined);
    assert.equal(roots.length, 1);
    assert.ok(posts.slice(1).every((p) => p.args.thread_ts === roots[0]?.ts));
  });
});
