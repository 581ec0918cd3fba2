import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openMcpTools } from "../../../functions/src/adapters/mcp/index.js";
import { type OpenedMcpServer, openMcpServer } from "../../../functions/src/adapters/mcp/server.js";
import { McpConfigSchema, McpServerSchema } from "../../../functions/src/config/mcp-settings.js";
import { type Approval, callDigest } from "../../../functions/src/domain/approval.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { ToolContext } from "../../../functions/src/tools/port.js";
import { createToolRegistry, type ToolRegistry } from "../../../functions/src/tools/registry.js";
import { sccFinding } from "../../fixtures/scc.js";
import { type HttpAssetServer, startHttpAssetServer } from "../../helpers/mcp/asset-inventory-http.js";
import { MapSecrets, STDIO_TOKEN, stdioAssets } from "./support.js";

const ASSET = "//compute.googleapis.com/projects/acme-prod/zones/us-central1-a/instances/etl-worker-1";
const LABEL = { name: ASSET, key: "quarantine", value: "off" };
const ctx = (approvals?: Approval[]): ToolContext => ({
  investigationId: "inv-mcp",
  finding: sccFinding("v1-cryptominer"),
  logger: silentLogger,
  ...(approvals ? { approvals } : {}),
});
const approve = (tool: string): Approval => ({
  investigationId: "inv-mcp",
  tool,
  argsDigest: callDigest(tool, LABEL),
  decision: "approved",
  decidedBy: "U0APPROVER",
  decidedAt: "2026-11-25T10:00:00.000Z",
});
type Data = { source: string; untrusted: boolean; text: string[]; truncated?: boolean };

describe("MCP servers over stdio", () => {
  let opened: OpenedMcpServer;
  let registry: ToolRegistry;
  const stdio = stdioAssets();
  const secrets = new MapSecrets({ "asset-api-token": STDIO_TOKEN });
  before(async () => {
    opened = await openMcpServer(stdio.config, secrets, silentLogger);
    registry = createToolRegistry(opened.tools);
  });
  after(async () => {
    await opened.close();
  });

  it("offers only the allowlisted tools, namespaced, acting unless the config says they only read", () => {
    assert.deepEqual(
      opened.tools.map((t) => [t.name, t.readOnly]),
      [
        ["mcp.assets.get_asset", true],
        // The server marks it readOnlyHint; ferret goes by its own config.
        ["mcp.assets.set_asset_label", false],
      ],
    );
    assert.deepEqual(secrets.reads, ["asset-api-token"]);
    const decl = registry.declarations().find((d) => d.name === "mcp.assets.get_asset");
    assert.doesNotMatch(JSON.stringify(decl?.parameters), /additionalProperties|\$schema/);
    assert.match(decl?.description ?? "", /^\[MCP server assets\] /);
  });

  it("answers a read as untrusted data labelled with its source; the credential reached the server", async () => {
    const out = await registry.run("mcp.assets.get_asset", { name: ASSET }, ctx());
    assert.equal(out.ok, true, out.summary);
    const data = out.data as Data;
    assert.equal(data.source, "MCP server assets");
    assert.equal(data.untrusted, true);
    assert.match(data.text[0] ?? "", /data-platform@acme\.example/);
    // The summary is written by ferret from counts: the injected note stays in the data.
    assert.doesNotMatch(out.summary, /IGNORE|set_asset_label/);
  });

  it("validates arguments against the server's schema before calling it", async () => {
    const out = await registry.run("mcp.assets.get_asset", { name: "" }, ctx());
    assert.equal(out.ok, false);
    assert.equal((out.data as { error: { code: string } }).error.code, "tool_input");
  });

  it("holds the acting tool until its exact call is approved, then runs it on the server", async () => {
    const held = await registry.run("mcp.assets.set_asset_label", LABEL, ctx());
    assert.equal(held.ok, false);
    assert.equal(held.approvalRequest?.tool, "mcp.assets.set_asset_label");
    assert.deepEqual(stdio.writes(), []);
    const ran = await registry.run(
      "mcp.assets.set_asset_label",
      LABEL,
      ctx([approve("mcp.assets.set_asset_label")]),
    );
    assert.equal(ran.ok, true, ran.summary);
    assert.equal(ran.approvedBy?.decidedBy, "U0APPROVER");
    assert.deepEqual(stdio.writes(), [LABEL]);
  });
});

describe("MCP servers over streamable HTTP", () => {
  let server: HttpAssetServer;
  before(async () => {
    server = await startHttpAssetServer("http-token", { padding: 40_000 });
  });
  after(async () => {
    await server.close();
  });
  const config = () =>
    McpConfigSchema.parse({
      servers: [
        {
          name: "cmdb",
          transport: "http",
          url: server.url,
          tools: ["get_*", "set_asset_label"],
          readOnlyTools: ["get_asset"],
          maxResponseBytes: 1_000,
          credentials: [{ secret: "cmdb-token", header: "Authorization", prefix: "Bearer " }],
        },
      ],
    });

  it("sends the Secret Manager credential as a header, caps the answer and keeps acting calls held", async () => {
    const mcp = await openMcpTools(config(), new MapSecrets({ "cmdb-token": "http-token" }), silentLogger);
    try {
      assert.deepEqual(
        mcp.tools.map((t) => t.name),
        ["mcp.cmdb.get_asset", "mcp.cmdb.set_asset_label"],
      );
      const registry = createToolRegistry(mcp.tools);
      const out = await registry.run("mcp.cmdb.get_asset", { name: ASSET }, ctx());
      assert.equal(out.ok, true, out.summary);
      const data = out.data as Data;
      assert.equal(data.truncated, true);
      assert.ok(Buffer.byteLength(data.text.join(""), "utf8") <= 1_000);
      assert.match(out.summary, /cut at 1000 bytes/);
      const held = await registry.run("mcp.cmdb.set_asset_label", LABEL, ctx());
      assert.ok(held.approvalRequest);
      assert.deepEqual(server.writes, []);
    } finally {
      await mcp.close();
    }
  });

  it("leaves a server out, with a warning, when its credential is refused", async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (m: string) => warnings.push(m), child: () => logger };
    const mcp = await openMcpTools(config(), new MapSecrets({ "cmdb-token": "wrong" }), logger);
    assert.deepEqual(mcp.tools, []);
    assert.ok(warnings.includes("MCP server unavailable; its tools are left out"), warnings.join("|"));
  });
});

describe("MCP server configuration", () => {
  it("refuses a server without an allowlist, a credential in the wrong place, and duplicate names", () => {
    assert.throws(
      () => McpServerSchema.parse({ name: "x", transport: "stdio", command: "x", tools: [] }),
      /allowlist|tools/,
    );
    const bad = McpConfigSchema.safeParse({
      servers: [
        {
          name: "a",
          transport: "http",
          url: "https://mcp.example/mcp",
          tools: ["*"],
          credentials: [{ secret: "s", env: "TOKEN" }],
        },
        { name: "a", transport: "stdio", command: "x", tools: ["*"] },
      ],
    });
    assert.equal(bad.success, false);
    const messages = bad.error?.issues.map((i) => i.message).join("|") ?? "";
    assert.match(messages, /through "header" only/);
    assert.match(messages, /two MCP servers are named a/);
  });
});
