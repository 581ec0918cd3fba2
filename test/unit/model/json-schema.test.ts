import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { type JsonObject, JsonObjectSchema } from "../../../functions/src/domain/json.js";
import { toGeminiJsonSchema } from "../../../functions/src/model/gemini-schema.js";
import { jsonSchemaOf } from "../../../functions/src/model/json-schema.js";

describe("jsonSchemaOf", () => {
  it("inlines reused schemas, drops $schema and zod's noise, describes the input side", () => {
    const Ioc = z.object({ type: z.enum(["ip", "domain"]), value: z.string().describe("the indicator") });
    const schema = z.object({
      primary: Ioc,
      others: z.array(Ioc),
      count: z.number().int(),
      at: z.iso.datetime(),
      mode: z.literal("fast"),
      note: z.string().default("none"),
      length: z.string().transform((s) => s.length),
    });
    const ioc = {
      type: "object",
      properties: {
        type: { type: "string", enum: ["ip", "domain"] },
        value: { type: "string", description: "the indicator" },
      },
      required: ["type", "value"],
    };
    assert.deepEqual(jsonSchemaOf(schema), {
      type: "object",
      properties: {
        primary: ioc,
        others: { type: "array", items: ioc },
        count: { type: "integer" },
        at: { type: "string", format: "date-time" },
        mode: { type: "string", const: "fast" },
        note: { type: "string", default: "none" },
        length: { type: "string" },
      },
      required: ["primary", "others", "count", "at", "mode", "length"],
    });
  });

  it("unrolls a recursive schema once and leaves no $ref behind", () => {
    const schema = z.object({ args: JsonObjectSchema });
    const out = jsonSchemaOf(schema);
    const text = JSON.stringify(out);
    assert.equal(text.includes("$ref"), false);
    assert.equal(text.includes("$defs"), false);
    assert.deepEqual(out, {
      type: "object",
      properties: {
        args: {
          type: "object",
          propertyNames: { type: "string" },
          additionalProperties: {
            anyOf: [
              { type: "string" },
              { type: "number" },
              { type: "boolean" },
              { type: "null" },
              { type: "array", items: {} },
              { type: "object", propertyNames: { type: "string" }, additionalProperties: {} },
            ],
          },
        },
      },
      required: ["args"],
    });
  });
});

describe("toGeminiJsonSchema", () => {
  it("turns const into enum, drops keywords Gemini does not use, and leaves property names alone", () => {
    const input: JsonObject = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        const: { type: "string", const: "x" },
        $id: { type: "string" },
        map: { type: "object", propertyNames: { type: "string" }, additionalProperties: { type: "number" } },
        list: { type: "array", items: { anyOf: [{ const: 1 }, { type: "null" }] } },
      },
      required: ["const"],
    };
    assert.deepEqual(toGeminiJsonSchema(input), {
      type: "object",
      properties: {
        const: { type: "string", enum: ["x"] },
        $id: { type: "string" },
        map: { type: "object", additionalProperties: { type: "number" } },
        list: { type: "array", items: { anyOf: [{ enum: [1] }, { type: "null" }] } },
      },
      required: ["const"],
    });
  });
});
