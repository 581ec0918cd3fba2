import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import {
  type DuckDbLogWarehouse,
  openDuckDbWarehouse,
} from "../../../functions/src/adapters/duckdb/warehouse.js";
import { StixThreatIntel } from "../../../functions/src/adapters/stix/threat-intel.js";
import { ConfigError, ToolFailedError, UnknownToolError } from "../../../functions/src/domain/errors.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { loadRunbooks } from "../../../functions/src/sql/runbooks.js";
import { createLogQueryTool } from "../../../functions/src/tools/log-query.js";
import { createLogTablesTool } from "../../../functions/src/tools/log-tables.js";
import { defineTool } from "../../../functions/src/tools/port.js";
import {
  createToolRegistry,
  geminiSchemaProblems,
  type ToolRegistry,
} from "../../../functions/src/tools/registry.js";
import { createThreatIntelLookupTool } from "../../../functions/src/tools/threat-intel-lookup.js";
import { CRYPTO_BUNDLE, CRYPTO_LOGS, scenarioContext } from "./context.js";

const ctx = scenarioContext();

function errorOf(data: unknown): JsonObject {
  assert.ok(data && typeof data === "object" && !Array.isArray(data) && "error" in data);
  return (data as { error: JsonObject }).error;
}

describe("tool registry with the real tools", () => {
  let warehouse: DuckDbLogWarehouse;
  let registry: ToolRegistry;
  before(async () => {
    warehouse = await openDuckDbWarehouse({ dir: CRYPTO_LOGS });
    registry = createToolRegistry([
      createLogQueryTool({ warehouse, runbooks: loadRunbooks() }),
      createLogTablesTool(warehouse),
      createThreatIntelLookupTool(StixThreatIntel.fromFile(CRYPTO_BUNDLE)),
    ]);
  });
  after(async () => {
    await warehouse.close();
  });

  it("declares each tool with an inline JSON Schema a Gemini function declaration accepts", () => {
    const declarations = registry.declarations();
    assert.deepEqual(
      declarations.map((d) => d.name),
      ["log_query", "log_tables", "threat_intel_lookup"],
    );
    for (const d of declarations) {
      assert.deepEqual(geminiSchemaProblems(d.parameters), [], d.name);
      assert.doesNotMatch(
        JSON.stringify(d.parameters),
        /\$ref|\$defs|anyOf|oneOf|allOf|additionalProperties|\$schema/,
        d.name,
      );
      assert.equal(d.parameters.type, "object");
      // Built-in tools only read; an acting tool would wait for a person's approval.
      assert.equal(registry.get(d.name).readOnly, true, d.name);
    }
    const logQuery = declarations[0]!.parameters as {
      properties: Record<string, { enum?: string[]; type?: string; properties?: object }>;
    };
    assert.deepEqual(logQuery.properties.runbook?.enum, loadRunbooks().names());
    assert.equal(logQuery.properties.params?.type, "object");
    assert.ok(Object.keys(logQuery.properties.params?.properties ?? {}).includes("instance"));
    assert.deepEqual(declarations[2]!.parameters.required, ["indicators"]);
  });

  it("get refuses anything not registered", () => {
    assert.throws(
      () => registry.get("shell_exec"),
      (e: unknown) =>
        e instanceof UnknownToolError &&
        /allowed: log_query, log_tables, threat_intel_lookup/.test(e.message),
    );
    assert.equal(registry.get("log_tables").name, "log_tables");
  });

  it("run answers an unknown tool with a non-retryable error instead of throwing", async () => {
    const out = await registry.run("shell_exec", { cmd: "id" }, ctx);
    assert.equal(out.ok, false);
    assert.deepEqual(errorOf(out.data), {
      code: "unknown_tool",
      message:
        'tool "shell_exec" is not in the registry (allowed: log_query, log_tables, threat_intel_lookup)',
      retryable: false,
    });
  });

  it("run refuses bad input with the zod issues and their paths", async () => {
    const out = await registry.run(
      "threat_intel_lookup",
      { indicators: [{ type: "phone", value: "555" }] },
      ctx,
    );
    assert.equal(out.ok, false);
    const error = errorOf(out.data);
    assert.equal(error.code, "tool_input");
    assert.equal(error.retryable, false);
    assert.deepEqual(
      (error.issues as JsonObject[]).map((i) => i.path),
      ["indicators.0.type"],
    );
    assert.match(
      out.summary,
      /^threat_intel_lookup failed: invalid input for tool "threat_intel_lookup": indicators\.0\.type/,
    );
    const missing = await registry.run("threat_intel_lookup", undefined, ctx);
    assert.equal(errorOf(missing.data).code, "tool_input");
  });

  it("log_tables lists the tables and describes one with dotted paths", async () => {
    const list = await registry.run("log_tables", {}, ctx);
    assert.equal(list.ok, true);
    assert.match(list.summary, /^8 log tables \(duckdb\)/);
    const one = await registry.run("log_tables", { table: "syslog" }, ctx);
    const columns = (one.data as { columns: Array<{ name: string }> }).columns.map((c) => c.name);
    assert.ok(columns.includes("labels.compute_googleapis_com_resource_name"));
    const missing = await registry.run("log_tables", { table: "nope" }, ctx);
    assert.equal(errorOf(missing.data).code, "not_found");
  });
});

describe("tool registry error containment", () => {
  const flaky = defineTool({
    name: "flaky",
    readOnly: true,
    description: "fails on purpose",
    input: z.object({ mode: z.enum(["retryable", "bug"]) }),
    async run(input) {
      if (input.mode === "retryable") throw new ToolFailedError("flaky", "provider returned 503", true);
      throw new TypeError("cannot read properties of undefined");
    },
  });
  const registry = createToolRegistry([flaky]);

  it("marks a retryable failure as such", async () => {
    const out = await registry.run("flaky", { mode: "retryable" }, ctx);
    assert.equal(out.ok, false);
    assert.equal(errorOf(out.data).retryable, true);
    assert.match(out.summary, /provider returned 503 \(retrying later may help\)$/);
  });

  it("contains an unexpected exception as a non-retryable tool failure", async () => {
    const out = await registry.run("flaky", { mode: "bug" }, ctx);
    assert.deepEqual(errorOf(out.data), {
      code: "tool_failed",
      message: "cannot read properties of undefined",
      retryable: false,
    });
  });

  it("refuses duplicate names and schemas Gemini cannot take", () => {
    assert.throws(() => createToolRegistry([flaky, flaky]), ConfigError);
    const union = defineTool({
      name: "union_tool",
      readOnly: true,
      description: "takes a union",
      input: z.object({ target: z.union([z.object({ ip: z.string() }), z.object({ domain: z.string() })]) }),
      async run() {
        return { ok: true, summary: "", data: null };
      },
    });
    assert.throws(
      () => createToolRegistry([union]),
      /union_tool has a schema Gemini cannot take: \$\.target: unsupported keyword "anyOf"/,
    );
  });

  it("geminiSchemaProblems flags open maps and type lists", () => {
    assert.deepEqual(geminiSchemaProblems({ type: "object", additionalProperties: { type: "string" } }), [
      '$: unsupported keyword "additionalProperties"',
    ]);
    assert.deepEqual(geminiSchemaProblems({ type: ["string", "null"] }), [
      "$: type must be one of object/array/string/number/integer/boolean",
    ]);
  });
});
