import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../../functions/src/config/config.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { LogAnalystSessionSchema } from "../../../functions/src/domain/log-analyst-session.js";
import { buildToolRegistry } from "../../../functions/src/entry/tool-registry.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { EventBus } from "../../../functions/src/ports/event-bus.js";
import { geminiSchemaProblems } from "../../../functions/src/tools/registry.js";
import { sampleFact } from "../../helpers/memory-facts.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";
import { CRYPTO_LOGS, callContext, finalAnswer, obj } from "./support.js";

const env = { FERRET_DUCKDB_DIR: CRYPTO_LOGS };

describe("buildToolRegistry wires log_analysis", () => {
  it("registers it next to log_query and log_tables, naming the tables the main agent can ask about", async () => {
    const built = await buildToolRegistry(loadConfig({ env }), env, silentLogger);
    try {
      assert.deepEqual(built.registry.names(), ["log_query", "log_tables", "log_analysis"]);
      const declaration = built.registry.declarations().find((d) => d.name === "log_analysis");
      assert.deepEqual(geminiSchemaProblems(declaration!.parameters), []);
      for (const table of built.tables) assert.ok(declaration!.description.includes(table.name), table.name);
      // Without a model from the composition root the analyst thinks offline.
      const out = await built.registry.run(
        "log_analysis",
        { request: "Which external IPs did VM etl-worker-1 send traffic to?" },
        callContext(),
      );
      assert.equal(obj(out.data).model, "offline-playbook");
    } finally {
      await built.warehouse?.close();
    }
  });

  it("thinks with the model it is given, recalls through the given recall, and publishes to agent-sessions", async () => {
    const published: { topic: string; data: JsonObject }[] = [];
    const bus: EventBus = {
      publish: async (topic, data) => {
        published.push({ topic, data });
        return "1";
      },
    };
    const model = new ScriptedModel({ log_analyst: [finalAnswer()] }, { name: "gemini-test" });
    const built = await buildToolRegistry(loadConfig({ env }), env, silentLogger, undefined, {
      model,
      bus,
      recall: async () => [{ id: "mem-1", fact: sampleFact(0) }],
    });
    try {
      await built.registry.run(
        "log_analysis",
        { request: "Which IPs did etl-worker-1 reach?" },
        callContext(),
      );
      assert.equal(model.requestsFor("log_analyst").length, 1);
      assert.deepEqual(
        published.map((p) => p.topic),
        ["agent-sessions"],
      );
      const session = LogAnalystSessionSchema.parse(published[0]?.data);
      assert.equal(session.model, "gemini-test");
      assert.deepEqual(session.recalledMemoryIds, ["mem-1"]);
    } finally {
      await built.warehouse?.close();
    }
  });
});
