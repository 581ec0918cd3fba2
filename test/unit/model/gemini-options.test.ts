import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../../functions/src/config/config.js";
import {
  embedBatchSize,
  GeminiOptionsSchema,
  geminiOptionsFromConfig,
  geminiOptionsFromEnv,
  isGeminiConfigured,
} from "../../../functions/src/model/gemini-options.js";

describe("geminiOptionsFromEnv", () => {
  it("uses the Developer API with a key, preferring GOOGLE_API_KEY like the SDK", () => {
    assert.deepEqual(geminiOptionsFromEnv({ GEMINI_API_KEY: "g", GOOGLE_API_KEY: "o" }), {
      vertexai: false,
      apiKey: "o",
    });
    assert.equal(geminiOptionsFromEnv({ GEMINI_API_KEY: "g" }).apiKey, "g");
  });

  it("uses Vertex with project and location, which win over a key", () => {
    assert.deepEqual(
      geminiOptionsFromEnv({
        GOOGLE_GENAI_USE_VERTEXAI: "true",
        GOOGLE_CLOUD_PROJECT: "sec-prod",
        GOOGLE_CLOUD_LOCATION: "europe-west1",
        GEMINI_API_KEY: "ignored",
        // Model names and the timeout belong to the config now; the SDK's variables stay here.
        FERRET_GEMINI_MODEL: "gemini-2.5-pro",
        FERRET_GEMINI_TIMEOUT_MS: "30000",
      }),
      {
        vertexai: true,
        project: "sec-prod",
        location: "europe-west1",
      },
    );
    assert.equal(
      geminiOptionsFromEnv({ GOOGLE_GENAI_USE_VERTEXAI: "True", GOOGLE_CLOUD_PROJECT: "p" }).location,
      "global",
    );
  });

  it("falls back to Vertex express mode with only a key", () => {
    const options = geminiOptionsFromEnv({ GOOGLE_GENAI_USE_VERTEXAI: "1", GOOGLE_API_KEY: "k" });
    assert.equal(options.vertexai, true);
    assert.equal(options.apiKey, "k");
    assert.equal(options.project, undefined);
  });

  it("says whether Gemini is reachable at all", () => {
    assert.equal(isGeminiConfigured({}), false);
    assert.equal(isGeminiConfigured({ GEMINI_API_KEY: " " }), false);
    assert.equal(isGeminiConfigured({ GEMINI_API_KEY: "k" }), true);
    assert.equal(isGeminiConfigured({ GOOGLE_GENAI_USE_VERTEXAI: "true" }), false);
    assert.equal(isGeminiConfigured({ GOOGLE_GENAI_USE_VERTEXAI: "true", GOOGLE_CLOUD_PROJECT: "p" }), true);
    assert.equal(
      isGeminiConfigured({ GOOGLE_GENAI_USE_VERTEXAI: "false", GOOGLE_CLOUD_PROJECT: "p" }),
      false,
    );
  });
});

describe("embedBatchSize", () => {
  const resolve = (input: Parameters<typeof GeminiOptionsSchema.parse>[0]) =>
    GeminiOptionsSchema.parse(input);

  it("follows each backend's documented limit unless configured", () => {
    assert.equal(embedBatchSize(resolve({})), 100);
    assert.equal(embedBatchSize(resolve({ vertexai: true })), 1);
    assert.equal(embedBatchSize(resolve({ vertexai: true, embeddingModel: "text-embedding-005" })), 250);
    // Vertex sends gemini-embedding-2 through :embedContent, which takes one content.
    assert.equal(embedBatchSize(resolve({ vertexai: true, embeddingModel: "gemini-embedding-2" })), 1);
    assert.equal(embedBatchSize(resolve({ embeddingModel: "gemini-embedding-2" })), 100);
    assert.equal(embedBatchSize(resolve({ embedBatchSize: 7 })), 7);
  });
});

describe("the default model timeout comes from the config", () => {
  it("gives every Gemini call 90 s unless FERRET_GEMINI_TIMEOUT_MS says otherwise", () => {
    assert.equal(geminiOptionsFromConfig(loadConfig({ env: {} }).model).timeoutMs, 90_000);
    const set = loadConfig({ env: { FERRET_GEMINI_TIMEOUT_MS: "30000" } });
    assert.equal(geminiOptionsFromConfig(set.model).timeoutMs, 30_000);
  });

  it("refuses a timeout under a second: a call could never answer", () => {
    assert.throws(() => loadConfig({ env: { FERRET_GEMINI_TIMEOUT_MS: "10" } }), /FERRET_GEMINI_TIMEOUT_MS/);
  });
});
