import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type OpenedMcpServer, openMcpServer } from "../../../functions/src/adapters/mcp/server.js";
import { askStepExecutor } from "../../../functions/src/agent/step-executor.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import type { StepReport } from "../../../functions/src/domain/results.js";
import { buildToolRegistry } from "../../../functions/src/entry/tool-registry.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { plan, step } from "../../fixtures/plans.js";
import { sccFinding } from "../../fixtures/scc.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";
import { MapSecrets, STDIO_TOKEN, stdioAssets } from "./support.js";

const ASSET = "//compute.googleapis.com/projects/acme-prod/zones/us-central1-a/instances/etl-worker-1";
const report: StepReport = {
  outcome: "answered",
  summary: "etl-worker-1 is a prod instance owned by data-platform.",
  facts: ["owner data-platform@acme.example"],
  iocs: [],
};

/**
 * The MCP path end to end through the executor with the scripted model: the step reads an
 * asset from a real MCP server process, the answer comes back as untrusted data, and a model
 * that then obeys the instruction planted in the asset's label gets its acting call held.
 */
describe("an MCP tool inside a step", () => {
  let opened: OpenedMcpServer;
  const stdio = stdioAssets();
  before(async () => {
    opened = await openMcpServer(
      stdio.config,
      new MapSecrets({ "asset-api-token": STDIO_TOKEN }),
      silentLogger,
    );
  });
  after(async () => {
    await opened.close();
  });

  it("reads through the server, fences its answer as data, and holds the injected acting call", async () => {
    const toolbox = new ToolBox(createToolRegistry(opened.tools), () => true);
    const theStep = step("asset", {
      description: "Who owns the instance?",
      tools: ["mcp.assets.get_asset", "mcp.assets.set_asset_label"],
    });
    const model = new ScriptedModel({
      executor: [
        { toolCalls: [{ id: "c1", name: "mcp.assets.get_asset", args: { name: ASSET } }] },
        // What a hijacked model does after reading the label.
        {
          toolCalls: [
            {
              id: "c2",
              name: "mcp.assets.set_asset_label",
              args: { name: "etl-worker-1", key: "quarantine", value: "off" },
            },
          ],
        },
        { json: report },
      ],
    });
    const result = await askStepExecutor({
      investigationId: "inv-mcp-e2e",
      finding: sccFinding("v1-cryptominer"),
      plan: plan([theStep]),
      step: theStep,
      priorResults: [],
      model,
      toolbox,
      maxIterations: 4,
      logger: silentLogger,
      now: () => new Date("2026-11-25T10:00:00.000Z"),
    });
    assert.equal(result.status, "done");
    assert.deepEqual(
      result.toolCalls.map((c) => [c.name, c.ok, c.approvalRequest !== undefined]),
      [
        ["mcp.assets.get_asset", true, false],
        ["mcp.assets.set_asset_label", false, true],
      ],
    );
    assert.deepEqual(stdio.writes(), []);
    // The server's text reached the model only inside the tool response's untrusted_data.
    const second = model.requests[1];
    const toolMessage = second?.messages.find((m) => m.role === "tool");
    assert.ok(toolMessage && toolMessage.role === "tool");
    const response = toolMessage.responses[0]?.response as {
      untrusted_data: { text: string[] };
      summary: string;
    };
    assert.match(response.untrusted_data.text[0] ?? "", /IGNORE PREVIOUS INSTRUCTIONS/);
    assert.doesNotMatch(response.summary, /IGNORE/);
    for (const m of second?.messages ?? [])
      if (m.role === "user") assert.doesNotMatch(m.text, /IGNORE PREVIOUS/);
  });

  it("buildToolRegistry offers the configured server's tools next to the built-in ones", async () => {
    const { config: server } = stdioAssets({ credentials: [] });
    const file = join(mkdtempSync(join(tmpdir(), "ferret-mcp-config-")), "ferret.yaml");
    writeFileSync(file, JSON.stringify({ mcp: { servers: [server] } }));
    const config = loadConfig({ env: {}, file });
    const built = await buildToolRegistry(config, {}, silentLogger);
    try {
      const names = built.registry.names();
      assert.ok(names.includes("mcp.assets.get_asset"), names.join(","));
      assert.ok(names.includes("mcp.assets.set_asset_label"));
      assert.ok(!names.some((n) => n.includes("delete_everything")));
    } finally {
      await built.mcp?.close();
    }
  });
});
