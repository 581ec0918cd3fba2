import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../../functions/src/config/config.js";
import { readEnvironment } from "../../../functions/src/config/environment.js";
import { ConfigError } from "../../../functions/src/domain/errors.js";
import { buildToolRegistry } from "../../../functions/src/entry/tool-registry.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";

describe("readEnvironment", () => {
  it("validates the log level and names the variable when it is wrong", () => {
    assert.equal(readEnvironment({}).logLevel, "INFO");
    assert.equal(readEnvironment({ FERRET_LOG_LEVEL: "ERROR" }).logLevel, "ERROR");
    assert.throws(
      () => readEnvironment({ FERRET_LOG_LEVEL: "verbose" }),
      (error: unknown) => error instanceof ConfigError && /FERRET_LOG_LEVEL="verbose"/.test(error.message),
    );
  });

  it("refuses a workflow or Slack URL that is not a URL", () => {
    assert.throws(() => readEnvironment({ FERRET_WORKFLOWS_URL: "localhost:8080" }), /FERRET_WORKFLOWS_URL/);
    assert.throws(() => readEnvironment({ FERRET_SLACK_API_URL: "slack" }), /FERRET_SLACK_API_URL/);
  });

  it("reads the project, the workflow's defaults and trims secrets", () => {
    const env = readEnvironment({
      GCLOUD_PROJECT: "older-name",
      GOOGLE_CLOUD_LOCATION: "europe-west1",
      OTX_API_KEY: "  k  ",
      SLACK_BOT_TOKEN: " ",
    });
    assert.equal(env.projectId, "older-name");
    assert.equal(env.otxApiKey, "k");
    assert.equal(env.slack.botToken, undefined, "a blank token is no token");
    assert.deepEqual(env.workflows, { name: "ferret-investigate", location: "europe-west1" });
    assert.equal(
      readEnvironment({ GOOGLE_CLOUD_PROJECT: "p", GCLOUD_PROJECT: "q" }).projectId,
      "p",
      "GOOGLE_CLOUD_PROJECT wins",
    );
  });

  it("resolves Gemini credentials the way @google/genai does", () => {
    assert.deepEqual(readEnvironment({ GEMINI_API_KEY: "g", GOOGLE_API_KEY: "o" }).gemini, {
      vertexai: false,
      apiKey: "o",
    });
    assert.deepEqual(
      readEnvironment({ GOOGLE_GENAI_USE_VERTEXAI: "true", GOOGLE_CLOUD_PROJECT: "p", GOOGLE_API_KEY: "k" })
        .gemini,
      { vertexai: true, project: "p", location: "global" },
    );
  });

  it("an OTX provider without OTX_API_KEY stops the registry with a config error", async () => {
    const env = { FERRET_OTX_ENABLED: "true" };
    await assert.rejects(
      buildToolRegistry(loadConfig({ env }), env, silentLogger),
      (error: unknown) => error instanceof ConfigError && /OTX_API_KEY is not set/.test(error.message),
    );
    const withKey = { ...env, OTX_API_KEY: "key" };
    const built = await buildToolRegistry(loadConfig({ env: withKey }), withKey, silentLogger);
    assert.ok(built.registry.names().includes("threat_intel_lookup"));
  });
});
