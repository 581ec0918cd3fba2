import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError } from "../../../functions/src/domain/errors.js";
import { buildRuntime } from "../../../functions/src/entry/compose.js";
import { loadHandler } from "../../../functions/src/entry/role-handler.js";
import { ROLES } from "../../../functions/src/roles/index.js";

/**
 * Each function builds only what it uses: a runtime without tools never touches the log
 * warehouse, so a log directory that is missing (which stops a tool-using function at
 * start-up) is no concern of ingest or the notifier. Nothing here connects anywhere:
 * building the Firestore and Pub/Sub clients opens no connection.
 */
const ENV = {
  GOOGLE_CLOUD_PROJECT: "ferret-runtime-needs",
  FERRET_MODEL_PROVIDER: "offline",
  FERRET_DUCKDB_DIR: "/nonexistent/ferret-logs",
  FERRET_WORKFLOWS_URL: "http://127.0.0.1:9",
  FERRET_LOG_LEVEL: "CRITICAL",
};

describe("each function builds only what it uses", () => {
  it("a runtime without tools opens no warehouse and lists no tables", async () => {
    const rt = await buildRuntime(ENV, { tools: false, chat: false });
    assert.deepEqual(rt.registry.names(), []);
    assert.deepEqual(rt.tables, []);
  });

  it("a runtime with tools does, and says so when the log directory is missing", async () => {
    await assert.rejects(
      buildRuntime(ENV, { tools: true, chat: false }),
      (error: unknown) => error instanceof ConfigError && /does not exist/.test(error.message),
    );
  });

  it("a bad log level stops start-up naming the variable", async () => {
    await assert.rejects(
      buildRuntime({ ...ENV, FERRET_LOG_LEVEL: "LOUD" }, { tools: false, chat: false }),
      (error: unknown) => error instanceof ConfigError && /FERRET_LOG_LEVEL/.test(error.message),
    );
  });

  it("every role's code loads and gives its function a handler", async () => {
    for (const role of ROLES) {
      const handler = await loadHandler(role);
      assert.equal(typeof handler, "function", `${role.name} loads a handler`);
    }
  });
});
