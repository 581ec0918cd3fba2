import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../../functions/src/config/config.js";
import { ConfigError } from "../../../functions/src/domain/errors.js";
import { buildToolRegistry, embeddingSpace } from "../../../functions/src/entry/tool-registry.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";

const SCENARIO = "examples/scenarios/cryptomining";
const services = {
  store: { findRelated: async () => [] },
  findingEmbeddings: { upsert: async () => {}, nearest: async () => [] },
  embedder: { embed: async () => [] },
};

async function build(env: Record<string, string>, withServices = true) {
  const config = loadConfig({ env });
  return buildToolRegistry(config, env, silentLogger, withServices ? services : undefined);
}

describe("buildToolRegistry wiring", () => {
  it("registers related_findings whenever the store and embeddings are given", async () => {
    const bare = await build({}, false);
    assert.deepEqual(bare.registry.names(), []);
    const withServices = await build({});
    assert.deepEqual(withServices.registry.names(), ["related_findings"]);
  });

  it("asks STIX and OTX together when both are configured", async () => {
    const built = await build({
      FERRET_STIX_BUNDLE: `${SCENARIO}/intel/bundle.json`,
      FERRET_OTX_ENABLED: "true",
      OTX_API_KEY: "k",
    });
    const intel = built.registry.declarations().find((d) => d.name === "threat_intel_lookup");
    assert.match(intel?.description ?? "", /\(stix:bundle\.json\+otx\)/);
  });

  it("uses OTX alone when no bundle is given, and refuses to start without its key", async () => {
    const built = await build({ FERRET_OTX_ENABLED: "true", OTX_API_KEY: "k" });
    assert.match(
      built.registry.declarations().find((d) => d.name === "threat_intel_lookup")?.description ?? "",
      /intelligence \(otx\)/,
    );
    await assert.rejects(build({ FERRET_OTX_ENABLED: "true" }), /OTX_API_KEY is not set/);
  });

  it("refuses BigQuery without a dataset or a project", async () => {
    await assert.rejects(build({ FERRET_LOG_WAREHOUSE: "bigquery", GOOGLE_CLOUD_PROJECT: "p" }), ConfigError);
    await assert.rejects(
      build({ FERRET_LOG_WAREHOUSE: "bigquery", FERRET_BIGQUERY_DATASET: "logs" }),
      ConfigError,
    );
  });

  it("still serves the DuckDB warehouse by default", async () => {
    const built = await build({ FERRET_DUCKDB_DIR: `${SCENARIO}/logs` });
    assert.deepEqual(built.registry.names(), ["log_query", "log_tables", "log_analysis", "related_findings"]);
    assert.equal(built.warehouse?.dialect, "duckdb");
    await built.warehouse?.close();
  });

  it("keeps embedding spaces apart by model", () => {
    const config = loadConfig({ env: {} });
    assert.equal(embeddingSpace(config, { offline: true }), "offline-hash-v1");
    assert.equal(embeddingSpace(config, { offline: false }), "gemini:gemini-embedding-001");
  });
});
