import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import type { CloudEvent, Request, Response } from "@google-cloud/functions-framework";
import { loadConfig } from "../../../functions/src/config/config.js";
import { ConfigError, StorageError } from "../../../functions/src/domain/errors.js";
import { eventHandler, workflowHandler } from "../../../functions/src/entry/role-handler.js";
import type { Runtime } from "../../../functions/src/entry/runtime.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { createLogger } from "../../../functions/src/platform/logger.js";
import type { InvestigationStore } from "../../../functions/src/ports/investigation-store.js";
import { roleNamed } from "../../../functions/src/roles/index.js";
import { planner } from "../../../functions/src/roles/planner.js";
import { workflow } from "../../../functions/src/roles/role.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";

/**
 * Secrets never reach the logs: ferret's structured logger masks them wherever they sit
 * (message, nested fields, errors, arrays, keys named like secrets), and the functions'
 * error paths (an HTTP operation that throws, a runtime that cannot start, a Pub/Sub
 * handler that asks for redelivery) neither log nor hand back the secret an error carried.
 * Every captured byte is scanned for the secrets' bodies.
 */
const PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
const SECRETS = {
  slackBot: "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
  slackApp: "xapp-1-A0123456789-1234567890123-0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978",
  slackWebhook: "https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2",
  googleApiKey: "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
  privateKey: `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}\n-----END PRIVATE KEY-----\n`,
  /** An error message cut at a length limit keeps the key's start but loses its END line. */
  truncatedKey: `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}`,
  bearer: "Bearer eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmZXJyZXQifQ.c2lnbmF0dXJlLXBhcnQ",
};
/** What must never appear: the part of each secret that grants access. */
const BODIES = [
  "AbCdEfGhIjKlMnOpQrStUvWx",
  "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
  "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2",
  "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
  PEM_BODY,
  "eyJzdWIiOiJmZXJyZXQifQ",
];
const everySecret = Object.values(SECRETS).join(" | ");

function leaks(text: string): string[] {
  return BODIES.filter((b) => text.includes(b) || text.includes(JSON.stringify(b).slice(1, -1)));
}

/** Captures what a call writes to stdout, stderr and console while it runs. */
async function captured<T>(
  run: () => Promise<T>,
): Promise<{ value: T | undefined; error: unknown; out: string }> {
  const chunks: string[] = [];
  const saved = {
    out: process.stdout.write,
    err: process.stderr.write,
    log: console.log,
    error: console.error,
    warn: console.warn,
  };
  const grab = (...args: unknown[]) => {
    chunks.push(
      args
        .map((a) => (typeof a === "string" ? a : a instanceof Error ? `${a.stack}` : JSON.stringify(a)))
        .join(" "),
    );
    return true;
  };
  process.stdout.write = grab as typeof process.stdout.write;
  process.stderr.write = grab as typeof process.stderr.write;
  console.log = grab;
  console.error = grab;
  console.warn = grab;
  try {
    return { value: await run(), error: undefined, out: chunks.join("\n") };
  } catch (error) {
    return { value: undefined, error, out: chunks.join("\n") };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    console.log = saved.log;
    console.error = saved.error;
    console.warn = saved.warn;
  }
}

function runtimeWith(store: Partial<InvestigationStore>, lines: string[]): Runtime {
  const offline = createOfflineModel();
  return {
    config: loadConfig({ env: {} }),
    logger: createLogger({ sink: { write: (l) => lines.push(l) } }),
    store: store as InvestigationStore,
    bus: { publish: async () => "0", close: async () => {} } as unknown as Runtime["bus"],
    launcher: { launch: async () => ({ executionId: "x" }) },
    chat: { post: async () => ({ ts: "1" }) } as unknown as Runtime["chat"],
    registry: createToolRegistry([]),
    tables: [],
    primaryModel: offline,
    offlineModel: offline,
    now: () => new Date(),
  };
}

function fakeResponse(): Response & { code: number; body: unknown } {
  const res = {
    code: 0,
    body: undefined as unknown,
    status(code: number) {
      res.code = code;
      return res;
    },
    json(body: unknown) {
      res.body = body;
      return res;
    },
  };
  return res as unknown as Response & { code: number; body: unknown };
}

function report(t: TestContext, path: string, text: string): string[] {
  const found = leaks(text);
  t.diagnostic(
    `figure secrets found in the ${path} output (${text.length} bytes, ${BODIES.length} secrets fed): ${found.length}`,
  );
  return found;
}

describe("secrets never reach the logs", () => {
  it("the logger masks tokens, keys and private keys wherever they are", (t) => {
    const lines: string[] = [];
    const logger = createLogger({ sink: { write: (l) => lines.push(l) } });
    logger.error(`posting failed with ${SECRETS.slackBot} and ${SECRETS.bearer}`, {
      error: new Error(`Gemini refused key ${SECRETS.googleApiKey}`),
      request: { headers: { Authorization: SECRETS.bearer, "x-goog-api-key": SECRETS.googleApiKey } },
      attempts: [SECRETS.slackApp, { url: SECRETS.slackWebhook }],
      credentials: { type: "service_account", private_key: SECRETS.privateKey },
      detail: `key file: ${JSON.stringify({ private_key: SECRETS.privateKey })}`,
      cut: `provider said: ${SECRETS.truncatedKey}`,
      token: "anything in a field named token",
    });
    logger.child({ slackToken: SECRETS.slackBot }).warn(everySecret);
    const found = report(t, "logger", lines.join("\n"));
    assert.deepEqual(found, [], `leaked: ${found.join(", ")}`);
    assert.match(lines.join("\n"), /\[masked\]/);
    // Masking is targeted: the rest of the message survives for the reader.
    assert.match(lines[0] ?? "", /posting failed with/);
  });

  it("an HTTP function whose operation throws logs and answers without the secret", async (t) => {
    const lines: string[] = [];
    const rt = runtimeWith({ get: async () => undefined }, lines);
    const failing = workflow("planner", "FERRET_PLANNER_URL", async () => ({
      ...planner,
      run: async () => {
        throw new StorageError(`upstream rejected ${SECRETS.bearer} / ${SECRETS.slackBot}`, true);
      },
    }));
    const handler = workflowHandler(failing, async () => rt);
    const res = fakeResponse();
    const run = await captured(() =>
      handler({ method: "POST", body: { investigationId: `inv-${"a".repeat(24)}` } } as Request, res),
    );
    assert.equal(res.code, 503);
    const found = report(
      t,
      "HTTP error path",
      [lines.join("\n"), run.out, JSON.stringify(res.body)].join("\n"),
    );
    assert.deepEqual(found, [], `leaked: ${found.join(", ")}`);
  });

  it("an HTTP function whose runtime cannot start logs and answers without the secret", async (t) => {
    const handler = workflowHandler(roleNamed("planner"), async () => {
      throw new ConfigError(`invalid SLACK_BOT_TOKEN ${SECRETS.slackBot}; key ${SECRETS.googleApiKey}`);
    });
    const res = fakeResponse();
    const run = await captured(() =>
      handler({ method: "POST", body: { investigationId: `inv-${"b".repeat(24)}` } } as Request, res),
    );
    const found = report(t, "runtime start failure", [run.out, JSON.stringify(res.body)].join("\n"));
    assert.deepEqual(found, [], `leaked: ${found.join(", ")}`);
  });

  it("a Pub/Sub function asking for redelivery logs and rethrows without the secret", async (t) => {
    const lines: string[] = [];
    const rt = runtimeWith(
      {
        get: async () => {
          throw new StorageError(`Firestore said: ${SECRETS.bearer} ${SECRETS.truncatedKey}`, true);
        },
      },
      lines,
    );
    const event = {
      id: "1",
      data: {
        message: {
          messageId: "m1",
          data: Buffer.from(
            JSON.stringify({
              investigationId: `inv-${"c".repeat(24)}`,
              seq: 3,
              type: "step_finished",
              at: new Date().toISOString(),
              message: "Step done",
            }),
          ).toString("base64"),
        },
      },
    } as unknown as CloudEvent<unknown>;
    const run = await captured(() => eventHandler(roleNamed("notifier"), async () => rt)(event));
    assert.ok(run.error, "a retryable failure is thrown so Pub/Sub redelivers");
    // functions-framework prints what the function throws (err.stack) to stderr.
    const thrown =
      run.error instanceof Error ? `${run.error.message}\n${run.error.stack}` : String(run.error);
    const found = report(t, "Pub/Sub redelivery path", [lines.join("\n"), run.out, thrown].join("\n"));
    assert.deepEqual(found, [], `leaked: ${found.join(", ")}`);
  });
});
