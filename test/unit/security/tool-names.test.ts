import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { openMcpServer } from "../../../functions/src/adapters/mcp/server.js";
import { type Config, toolAllowed } from "../../../functions/src/config/config.js";
import { McpServerSchema } from "../../../functions/src/config/mcp-settings.js";
import { type Approval, approvalFor, callDigest } from "../../../functions/src/domain/approval.js";
import {
  lookAlikeNames,
  toolNameMatches,
  toolNameSkeleton,
} from "../../../functions/src/domain/tool-names.js";
import { type Logger, silentLogger } from "../../../functions/src/platform/logger.js";
import type { ToolContext } from "../../../functions/src/tools/port.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { sccFinding } from "../../fixtures/scc.js";
import { startLookAlikeServer } from "../../helpers/mcp/look-alike-server.js";

/**
 * Issue 27: with `tools: [lookup_host]` and `readOnlyTools: [lookup_host]`, the same server's
 * separate tool LOOKUP_HOST (which isolates a host) was offered as read-only and ran, because
 * the allowlists were matched case-insensitively. Names now match exactly, and a server that
 * offers names told apart only by case or look-alike characters gets all of them refused.
 * Issue 35: look-alikes are decided by the UTS #39 skeleton from Unicode's confusables data
 * (a capital-I twin of `lookup_host` passed when case was folded first), and exact means
 * code point for code point (NFKC no longer runs first). The generated cases are in
 * tool-names.property.test.ts.
 */
const ctx: ToolContext = {
  investigationId: "inv-names",
  finding: sccFinding("v1-cryptominer"),
  logger: silentLogger,
};

function recordingLogger(): Logger & { warnings: { message: string; fields: unknown }[] } {
  const warnings: { message: string; fields: unknown }[] = [];
  const logger: Logger = {
    ...silentLogger,
    warn: (message: string, fields?: unknown) => {
      warnings.push({ message, fields });
    },
    child: () => logger,
  };
  return Object.assign(logger, { warnings });
}

function hostsConfig(url: string) {
  return McpServerSchema.parse({
    name: "hosts",
    transport: "http",
    url,
    tools: ["lookup_host"],
    readOnlyTools: ["lookup_host"],
    timeoutMs: 10_000,
  });
}

describe("tool names match exactly", () => {
  it("globs are case-sensitive, whole-name and code point for code point (no normalization first)", () => {
    assert.equal(toolNameMatches("lookup_host", "LOOKUP_HOST"), false);
    assert.equal(toolNameMatches("lookup_host", "lookup_host"), true);
    assert.equal(toolNameMatches("lookup_*", "lookup_host"), true);
    assert.equal(toolNameMatches("lookup_*", "Lookup_host"), false);
    assert.equal(toolNameMatches("lookup", "lookup_host"), false, "whole name");
    // Full-width letters and a Cyrillic о are other names (before: full-width matched after NFKC).
    assert.equal(toolNameMatches("ｌｏｏｋｕｐ_host", "lookup_host"), false);
    assert.equal(toolNameMatches("lookup_host", "l\u043eokup_host"), false);
    assert.equal(toolNameMatches("lookup_host", "look\u200bup_host"), false);
  });

  it("tools.allow / tools.deny: a deny cannot be dodged by case, an allow does not reach another case", () => {
    const config = (allow: string[], deny: string[]) =>
      ({ tools: { allow, deny } }) as unknown as Pick<Config, "tools">;
    assert.equal(toolAllowed(config(["threat_intel_lookup"], []), "THREAT_INTEL_LOOKUP"), false);
    assert.equal(toolAllowed(config(["*"], ["mcp.hosts.*"]), "mcp.hosts.lookup_host"), false);
    assert.equal(toolAllowed(config(["mcp.hosts.lookup_host"], []), "mcp.hosts.LOOKUP_HOST"), false);
    // A deny reaches the denied tool's look-alikes: capital I for l (before: allowed).
    assert.equal(toolAllowed(config(["*"], ["mcp.hosts.lookup_host"]), "mcp.hosts.Iookup_host"), false);
    assert.equal(toolAllowed(config(["*"], ["mcp.hosts.lookup_*"]), "mcp.hosts.1ookup_x"), false);
    assert.equal(toolAllowed(config(["*"], ["mcp.hosts.lookup_host"]), "mcp.hosts.get_host"), true);
  });

  it("look-alikes: case, capital I and digits for letters, other scripts, rn for m, full width, invisible", () => {
    for (const [a, b] of [
      ["lookup_host", "LOOKUP_HOST"],
      ["lookup_host", "Iookup_host"],
      ["lookup_host", "1ookup_h0st"],
      ["lookup_host", "l\u043e\u043ekup_host"],
      ["term_vm", "terrn_vm"],
      ["lookup_host", "ｌｏｏｋｕｐ_host"],
      ["lookup_host", "look\u200bup_host"],
    ] as const)
      assert.equal(toolNameSkeleton(a), toolNameSkeleton(b), `${a} ~ ${b}`);
    assert.notEqual(toolNameSkeleton("get_asset"), toolNameSkeleton("set_asset"));
    assert.notEqual(toolNameSkeleton("lookup_host"), toolNameSkeleton("iookup_host"), "i is not l");
    assert.deepEqual(
      [...lookAlikeNames(["get_asset", "lookup_host", "LOOKUP_HOST"]).keys()],
      ["lookup_host", "LOOKUP_HOST"],
    );
  });

  it("the toolbox refuses a call whose name differs from a step tool by case", async () => {
    const registry = createToolRegistry([
      {
        name: "lookup_host",
        description: "reads",
        readOnly: true,
        input: (await import("zod")).z.object({}),
        run: async () => ({ ok: true, summary: "ran", data: null }),
      },
    ]);
    const box = new ToolBox(registry, () => true);
    const out = await box.run("LOOKUP_HOST", {}, ["lookup_host"], ctx);
    assert.equal(out.ok, false);
    assert.match(out.summary, /does not exist/);
  });

  it("an approval of one case does not cover another", () => {
    const args = { host: "etl-worker-1" };
    const approval: Approval = {
      investigationId: "inv-names",
      tool: "mcp.hosts.lookup_host",
      argsDigest: callDigest("mcp.hosts.lookup_host", args),
      decision: "approved",
      decidedBy: "U0APPROVER",
      decidedAt: "2026-11-25T10:00:00.000Z",
    };
    assert.ok(approvalFor([approval], "inv-names", "mcp.hosts.lookup_host", args));
    assert.equal(approvalFor([approval], "inv-names", "mcp.hosts.LOOKUP_HOST", args), undefined);
  });
});

describe("an MCP server offering look-alike tool names", () => {
  const servers: { close(): Promise<void> }[] = [];
  after(async () => {
    for (const s of servers) await s.close();
  });

  it("issue 27's case: LOOKUP_HOST next to lookup_host — both refused, logged, nothing runs", async () => {
    const hosts = await startLookAlikeServer(["LOOKUP_HOST"]);
    servers.push(hosts);
    const logger = recordingLogger();
    const opened = await openMcpServer(hostsConfig(hosts.url), undefined, logger);
    try {
      assert.deepEqual(
        opened.tools.map((t) => [t.name, t.readOnly]),
        [],
        "neither twin is offered (before: both, LOOKUP_HOST as read-only)",
      );
      assert.deepEqual(opened.skipped.map((s) => s.tool).sort(), ["LOOKUP_HOST", "lookup_host"]);
      for (const s of opened.skipped) assert.match(s.reason, /which looks like it/);
      assert.equal(logger.warnings.filter((w) => w.message === "MCP tool not offered").length, 2);
      const registry = createToolRegistry(opened.tools);
      const out = await registry.run("mcp.hosts.LOOKUP_HOST", { host: "etl-worker-1" }, ctx);
      assert.equal(out.ok, false);
      assert.deepEqual(hosts.calls, [], "the acting twin never ran");
    } finally {
      await opened.close();
    }
  });

  it("a digit-for-letter twin and a Cyrillic twin are refused the same way", async () => {
    const hosts = await startLookAlikeServer(["1ookup_host", "l\u043eokup_host"]);
    servers.push(hosts);
    const opened = await openMcpServer(hostsConfig(hosts.url), undefined, silentLogger);
    try {
      assert.deepEqual(opened.tools, []);
      assert.deepEqual(opened.skipped.map((s) => s.tool).sort(), [
        "1ookup_host",
        "lookup_host",
        "l\u043eokup_host",
      ]);
    } finally {
      await opened.close();
    }
  });

  it("a capital-I twin next to lookup_host: both refused (before: lookup_host offered, the twin unseen)", async () => {
    const hosts = await startLookAlikeServer(["Iookup_host"]);
    servers.push(hosts);
    const opened = await openMcpServer(hostsConfig(hosts.url), undefined, silentLogger);
    try {
      assert.deepEqual(opened.tools, []);
      assert.deepEqual(opened.skipped.map((s) => s.tool).sort(), ["Iookup_host", "lookup_host"]);
    } finally {
      await opened.close();
    }
  });

  it("a name that looks like the allowlisted one without being it is refused and said so", async () => {
    const hosts = await startLookAlikeServer(["Iookup_host"], { withLookupHost: false });
    servers.push(hosts);
    const logger = recordingLogger();
    const opened = await openMcpServer(hostsConfig(hosts.url), undefined, logger);
    try {
      assert.deepEqual(opened.tools, []);
      assert.deepEqual(opened.skipped, [
        {
          tool: "Iookup_host",
          reason: 'it looks like the allowed "lookup_host" but is not the same name',
        },
      ]);
      assert.equal(logger.warnings.length, 1);
    } finally {
      await opened.close();
    }
  });

  it("without a twin, the listed tool is offered as the config says, and an unlisted case is not", async () => {
    const hosts = await startLookAlikeServer(["isolate_host"]);
    servers.push(hosts);
    const config = McpServerSchema.parse({
      ...hostsConfig(hosts.url),
      tools: ["lookup_host", "ISOLATE_HOST"],
    });
    const opened = await openMcpServer(config, undefined, silentLogger);
    try {
      assert.deepEqual(
        opened.tools.map((t) => [t.name, t.readOnly]),
        [["mcp.hosts.lookup_host", true]],
      );
    } finally {
      await opened.close();
    }
  });
});
