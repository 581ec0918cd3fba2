import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import {
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_GEMINI_LITE_MODEL,
  DEFAULT_GEMINI_MODEL,
  DEFAULT_PRICES,
  DEFAULT_ROLE_SETTINGS,
} from "../../../functions/src/config/model-settings.js";
import { resolveModel, unplacedModel } from "../../../functions/src/model/catalog.js";
import { estimateCostUsd } from "../../../functions/src/model/cost.js";
import { GeminiModel } from "../../../functions/src/model/gemini.js";
import {
  INJECTED_CALL_SIGNATURE,
  outputCap,
  thinkingConfigFor,
  toGeminiConfig,
  toGeminiContents,
} from "../../../functions/src/model/gemini-mapping.js";
import { lifecycleWarning } from "../../../functions/src/model/lifecycle.js";
import { someBrief } from "../../helpers/briefs.js";
import { FakeGemini, geminiAnswer } from "../../helpers/fake-gemini.js";

const ALIASES = ["gemini-flash-latest", "gemini-flash-lite-latest", "gemini-pro-latest"];
const LEVELS = ["minimal", "low", "medium", "high"] as const;
const DAY_MS = 86_400_000;

describe("model catalog: ids resolved before any generation rule (issue 36)", () => {
  it("every documented alias, however prefixed, gets the Gemini 3 rules: a level, a dummy signature, thinking room, no temperature", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ALIASES),
        fc.constantFrom("", "models/", "publishers/google/models/"),
        fc.constantFrom(...LEVELS),
        (alias, prefix, level) => {
          const model = `${prefix}${alias}`;
          const role = { thinkingLevel: level, thinkingBudget: 1_024, maxOutputTokens: 2_000 };
          assert.ok(thinkingConfigFor(model, role)?.thinkingLevel, model);
          assert.ok(outputCap(model, role, 2_000) > 2_000, model);
          const contents = toGeminiContents(
            [
              { role: "user", text: "go" },
              { role: "model", toolCalls: [{ id: "c1", name: "query_logs", args: {} }] },
            ],
            { model },
          );
          assert.equal(contents[1]?.parts?.[0]?.thoughtSignature, INJECTED_CALL_SIGNATURE);
          const config = toGeminiConfig(
            { brief: someBrief("planner"), system: "s", messages: [], temperature: 0.2 },
            { vertexai: false, model, role },
          );
          assert.equal(config.temperature, undefined);
        },
      ),
      { seed: 36, numRuns: 100 },
    );
  });

  it("the level sent is always one the resolved model accepts, for every placed id and role level", () => {
    const ids = [
      ...Object.keys(DEFAULT_PRICES),
      ...ALIASES,
      "gemini-3-pro-preview",
      "gemini-3.1-pro-preview",
    ];
    fc.assert(
      fc.property(fc.constantFrom(...ids), fc.constantFrom(...LEVELS), (model, level) => {
        const resolved = resolveModel(model);
        assert.ok(resolved.ok);
        const sent = thinkingConfigFor(model, { thinkingLevel: level, thinkingBudget: 1_024 })?.thinkingLevel;
        if (resolved.facts.thinking === "level")
          assert.ok(resolved.facts.levels.includes(sent as never), `${model} ${sent}`);
        else assert.equal(sent, undefined);
      }),
      { seed: 36, numRuns: 200 },
    );
  });

  it("an id ferret cannot place is refused with the reason and gets no generation rule", () => {
    for (const model of ["gemini-9-imaginary", "gemini-3.8-flsh", "claude-9"]) {
      const resolved = resolveModel(model);
      assert.equal(resolved.ok, false);
      assert.match(unplacedModel(model, false) ?? "", /is not a Gemini model ferret knows/);
      assert.equal(thinkingConfigFor(model, { thinkingLevel: "low", thinkingBudget: 0 }), undefined);
    }
    assert.match(unplacedModel("text-embedding-999", true) ?? "", /not an embedding model ferret knows/);
    assert.equal(unplacedModel(DEFAULT_EMBEDDING_MODEL, true), undefined);
  });

  it("defaults and lifecycle in step: every default is placed, priced, current and not retiring within 60 days of today", () => {
    const today = new Date();
    const defaults = [
      DEFAULT_GEMINI_MODEL,
      DEFAULT_GEMINI_LITE_MODEL,
      ...Object.values(DEFAULT_ROLE_SETTINGS)
        .map((r) => r.model)
        .filter((m) => m !== "main" && m !== "lite"),
    ];
    for (const model of defaults) {
      const resolved = resolveModel(model);
      assert.ok(resolved.ok, model);
      assert.equal(resolved.facts.routedTo, undefined, `${model} is routed to another model`);
      assert.ok(DEFAULT_PRICES[model], `${model} has no default price`);
      for (const day of [0, 30, 60]) {
        assert.equal(lifecycleWarning(model, new Date(today.getTime() + day * DAY_MS)), undefined, model);
      }
    }
  });

  it("every replacement and routing target the catalog names is itself placed, and every routed target is priced", () => {
    for (const model of Object.keys(DEFAULT_PRICES)) {
      const resolved = resolveModel(model);
      assert.ok(resolved.ok, model);
      for (const target of [resolved.facts.routedTo, resolved.facts.replacement]) {
        if (target) assert.ok(resolveModel(target).ok, `${model} → ${target}`);
      }
      if (resolved.facts.routedTo)
        assert.ok(DEFAULT_PRICES[resolved.facts.routedTo], resolved.facts.routedTo);
    }
    assert.match(
      lifecycleWarning("gemini-3.5-flash", new Date("2026-12-07T00:00:00Z")) ?? "",
      /answers its requests with gemini-3\.6-flash/,
    );
  });
});

describe("the answering model (modelVersion) is recorded and priced (issue 36)", () => {
  const server = new FakeGemini();
  let baseUrl = "";
  before(async () => {
    baseUrl = await server.start();
  });
  after(async () => {
    await server.stop();
  });

  it("a request to a routed id records and prices the model that answered", async () => {
    server.reply(
      geminiAnswer([{ text: "ok" }], {
        usageMetadata: {
          promptTokenCount: 1_000_000,
          candidatesTokenCount: 1_000,
          totalTokenCount: 1_001_000,
        },
      }),
    );
    const model = new GeminiModel({
      apiKey: "k",
      baseUrl,
      model: "gemini-3.5-flash",
      prices: DEFAULT_PRICES,
    });
    const response = await model.generate({
      brief: someBrief("planner"),
      system: "You plan.",
      messages: [{ role: "user", text: "plan" }],
    });
    assert.equal(response.model, "gemini-3.6-flash");
    assert.equal(response.usage.costUsd, estimateCostUsd(response.usage, DEFAULT_PRICES["gemini-3.6-flash"]));
    assert.notEqual(
      response.usage.costUsd,
      estimateCostUsd(response.usage, DEFAULT_PRICES["gemini-3.5-flash"]),
    );
  });

  it("an alias is sent as configured and gets the rules of the Gemini 3 model that answers it", async () => {
    server.reply(geminiAnswer([{ text: "ok" }]));
    const model = new GeminiModel({ apiKey: "k", baseUrl, model: "gemini-flash-latest", temperature: 0.3 });
    const response = await model.generate({
      brief: someBrief("planner"),
      system: "You plan.",
      messages: [{ role: "user", text: "plan" }],
    });
    const sent = server.requests.at(-1);
    assert.ok(sent);
    assert.match(sent.path, /models\/gemini-flash-latest:generateContent/);
    const config = (sent.body as { generationConfig: { thinkingConfig?: unknown; temperature?: number } })
      .generationConfig;
    assert.deepEqual(config.thinkingConfig, { thinkingLevel: "MEDIUM" });
    assert.equal(config.temperature, undefined);
    assert.equal(response.model, "gemini-3.8-flash");
  });
});
