import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { declaredParameters } from "../../../functions/src/adapters/mcp/schema.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";

describe("MCP input schemas declared to Gemini", () => {
  it("declares an optional argument written as a type list with null as nullable", () => {
    const { parameters, problems } = declaredParameters({
      type: "object",
      properties: { cursor: { type: ["string", "null"], description: "page" } },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(parameters.properties, {
      cursor: { type: "string", nullable: true, description: "page" },
    });
  });

  it("declares anyOf [T, null] nested in array items as nullable T", () => {
    const { parameters, problems } = declaredParameters({
      type: "object",
      properties: { ids: { type: "array", items: { anyOf: [{ type: "null" }, { type: "integer" }] } } },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(parameters.properties, {
      ids: { type: "array", items: { type: "integer", nullable: true } },
    });
  });

  it("still reports a union that is not T-or-null", () => {
    const unions: JsonObject[] = [
      { anyOf: [{ type: "string" }, { type: "integer" }] },
      { anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] },
      { type: ["string", "integer"] },
    ];
    for (const union of unions) {
      const { problems } = declaredParameters({ type: "object", properties: { v: union } });
      assert.ok(problems.length > 0, JSON.stringify(union));
    }
  });
});
