import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import type { z } from "zod";
import { ConclusionDraftSchema } from "../../../functions/src/domain/conclusion.js";
import type { JsonObject, JsonValue } from "../../../functions/src/domain/json.js";
import { PlanDraftSchema } from "../../../functions/src/domain/plan.js";
import { ReflectionDraftSchema } from "../../../functions/src/domain/reflection.js";
import { StepReportSchema } from "../../../functions/src/domain/results.js";
import { IntrospectionSchema } from "../../../functions/src/memory/introspection.js";
import { GeminiModel } from "../../../functions/src/model/gemini.js";
import { toGeminiJsonSchema } from "../../../functions/src/model/gemini-schema.js";
import { jsonSchemaOf } from "../../../functions/src/model/json-schema.js";
import { someBrief } from "../../helpers/briefs.js";
import { FakeGemini, jsonAnswer } from "../../helpers/fake-gemini.js";
import { ignoredSchemaKeywords } from "../../helpers/gemini-rules.js";

/** Keywords a portable schema may carry that Gemini's list does not have, with sample values. */
const UNDOCUMENTED: Array<[string, fc.Arbitrary<JsonValue>]> = [
  ["minLength", fc.integer({ min: 0, max: 500 })],
  ["maxLength", fc.integer({ min: 1, max: 5_000 })],
  ["pattern", fc.constantFrom("^[a-z]+$", "^inv-[a-f0-9]{24}$", "\\d{3}")],
  ["default", fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean())],
  ["multipleOf", fc.integer({ min: 2, max: 9 })],
  ["exclusiveMinimum", fc.integer({ min: -5, max: 5 })],
  ["uniqueItems", fc.constant(true)],
  ["minProperties", fc.integer({ min: 1, max: 4 })],
];

const leaf: fc.Arbitrary<JsonObject> = fc
  .tuple(
    fc.constantFrom("string", "integer", "number", "boolean"),
    fc.subarray(UNDOCUMENTED),
    fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: undefined }),
  )
  .chain(([type, picked, description]) =>
    fc.tuple(...picked.map(([, value]) => value)).map((values) => {
      const node: JsonObject = { type };
      if (description) node.description = description;
      picked.forEach(([keyword], i) => {
        node[keyword] = values[i] as JsonValue;
      });
      return node;
    }),
  );

const schemaTree = fc.letrec<{ node: JsonObject }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc
      .dictionary(fc.constantFrom("pattern", "default", "oneOf", "$id", "name", "minLength"), tie("node"), {
        minKeys: 1,
        maxKeys: 3,
      })
      .map((properties) => ({ type: "object", properties, additionalProperties: false })),
    tie("node").map((items) => ({ type: "array", items, minItems: 1, maxItems: 5 })),
    fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((oneOf) => ({ oneOf })),
  ),
})).node;

/** Every (node in, node out) pair at the same schema position. */
function pairs(input: JsonObject, output: JsonObject): Array<[JsonObject, JsonObject]> {
  const out: Array<[JsonObject, JsonObject]> = [[input, output]];
  const props = input.properties as Record<string, JsonObject> | undefined;
  for (const [name, child] of Object.entries(props ?? {}))
    out.push(...pairs(child, (output.properties as Record<string, JsonObject>)[name]!));
  if (input.items) out.push(...pairs(input.items as JsonObject, output.items as JsonObject));
  const branches = (input.oneOf ?? input.anyOf) as JsonObject[] | undefined;
  branches?.forEach((branch, i) => {
    out.push(...pairs(branch, (output.anyOf as JsonObject[])[i]!));
  });
  return out;
}

describe("schemas Gemini enforces (issue 36.4)", () => {
  it("only documented keywords reach Gemini, and every other constraint is said in its node's description", () => {
    fc.assert(
      fc.property(schemaTree, (schema) => {
        const sent = toGeminiJsonSchema(schema);
        // The fake's own reading of the documentation is the judge.
        assert.deepEqual(ignoredSchemaKeywords({ generationConfig: { responseJsonSchema: sent } }), []);
        for (const [before, after] of pairs(schema, sent)) {
          for (const [keyword] of UNDOCUMENTED) {
            if (before[keyword] === undefined) continue;
            assert.ok(
              String(after.description ?? "").includes(JSON.stringify(before[keyword])),
              `${keyword} ${JSON.stringify(before[keyword])} not said in ${JSON.stringify(after)}`,
            );
          }
          if (typeof before.description === "string")
            assert.ok(String(after.description).startsWith(before.description));
          if (before.oneOf) assert.match(String(after.description), /Exactly one of the alternatives/);
        }
      }),
      { seed: 364, numRuns: 150 },
    );
  });

  describe("the roles' schemas as ferret sends them", () => {
    const server = new FakeGemini();
    before(async () => {
      await server.start();
    });
    after(async () => {
      await server.stop();
    });
    const schemas: Array<[string, z.ZodType]> = [
      ["planner", PlanDraftSchema],
      ["reflector", ReflectionDraftSchema],
      ["concluder", ConclusionDraftSchema],
      ["step report", StepReportSchema],
      ["introspection", IntrospectionSchema],
    ];
    for (const [name, schema] of schemas) {
      it(`${name}: the fake Gemini finds no keyword it would ignore`, async () => {
        server.reset();
        server.reply(jsonAnswer({}));
        const model = new GeminiModel({ apiKey: "k", baseUrl: server.url });
        await model
          .generate({
            brief: someBrief("planner"),
            system: "s",
            messages: [{ role: "user", text: "go" }],
            responseSchema: jsonSchemaOf(schema),
          })
          .catch(() => undefined);
        assert.equal(server.requests.length, 1);
        assert.deepEqual(server.requests[0]!.ignoredKeywords, []);
      });
    }
  });
});
