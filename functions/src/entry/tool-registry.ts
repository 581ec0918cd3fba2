import { basename } from "node:path";
import { CombinedThreatIntel } from "../adapters/intel/combined.js";
import type { McpTools } from "../adapters/mcp/index.js";
import { OtxThreatIntel } from "../adapters/otx/threat-intel.js";
import { StixThreatIntel } from "../adapters/stix/threat-intel.js";
import type { Config } from "../config/config.js";
import { type Environment, hasGeminiCredentials, readEnvironment } from "../config/environment.js";
import { ConfigError, errorMessage } from "../domain/errors.js";
import type { RecallMemories } from "../log-analyst/contract.js";
import { publishSessionsTo } from "../log-analyst/publish.js";
import type { Model } from "../model/port.js";
import { createOfflineModel } from "../offline-model/index.js";
import { lazy } from "../platform/lazy.js";
import type { Logger } from "../platform/logger.js";
import type { EventBus } from "../ports/event-bus.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import type { LogWarehouse } from "../ports/log-warehouse.js";
import type { SecretSource } from "../ports/secret-source.js";
import type { ThreatIntel } from "../ports/threat-intel.js";
import { LOG_TABLES } from "../sql/log-schema.js";
import { loadRunbooks } from "../sql/runbooks.js";
import { createLogAnalysisTool, type LogAnalysisToolOptions } from "../tools/log-analysis.js";
import { createLogQueryTool } from "../tools/log-query.js";
import { createLogTablesTool } from "../tools/log-tables.js";
import type { AnyTool } from "../tools/port.js";
import { createToolRegistry } from "../tools/registry.js";
import { createRelatedFindingsTool, type FindingEmbeddings } from "../tools/related-findings.js";
import { createThreatIntelLookupTool } from "../tools/threat-intel-lookup.js";
import type { ToolboxRegistry } from "../tools/toolbox.js";
import { duckDbTableList, LazyLogWarehouse } from "./lazy-warehouse.js";

export { embeddingSpace } from "./embedding-space.js";

export interface BuiltTools {
  registry: ToolboxRegistry;
  tables: { name: string; description: string }[];
  warehouse?: LogWarehouse;
  /** Connected MCP servers (their clients stay open for the process's life). */
  mcp?: McpTools;
}

/** What tools that read ferret's own state need; without it, related_findings is left out. */
export interface ToolServices {
  store: Pick<InvestigationStore, "findRelated">;
  findingEmbeddings: FindingEmbeddings;
  /** The model whose embeddings fill findingEmbeddings (never a fallback: spaces must not mix). */
  embedder: Pick<Model, "embed">;
}

/**
 * What the log-analysis sub-agent thinks with and reports to, from the composition root:
 * the primary model (the offline model as its fallback), the process's bus for
 * `agent-sessions` and the memory store's recall. Without them it thinks offline, recalls
 * nothing and keeps its sessions to itself. The bus is not built here: the process that
 * owns a Pub/Sub client also closes it.
 */
export interface AnalystServices {
  model: Model;
  fallbackModel?: Model;
  bus?: EventBus;
  recall?: RecallMemories;
}

function analystOptions(
  config: Config,
  environment: Environment,
  logger: Logger,
  data: Pick<LogAnalysisToolOptions, "warehouse" | "runbooks" | "tables">,
  analyst: AnalystServices | undefined,
): LogAnalysisToolOptions {
  if (!analyst && (config.model.provider === "gemini" || hasGeminiCredentials(environment.gemini)))
    logger.warn("log_analysis runs on the offline model: no model was passed to buildToolRegistry");
  const bus = analyst?.bus;
  if (!bus) logger.info("log_analysis sessions are not published: no bus was passed to buildToolRegistry");
  return {
    ...data,
    model: analyst?.model ?? createOfflineModel(),
    ...(analyst?.fallbackModel && config.model.fallbackToOffline
      ? { fallbackModel: analyst.fallbackModel }
      : {}),
    ...(analyst?.recall ? { recall: analyst.recall } : {}),
    ...(bus ? { publishSession: publishSessionsTo(bus, logger) } : {}),
  };
}

async function openWarehouse(
  config: Config,
  environment: Environment,
  logger: Logger,
): Promise<LogWarehouse | undefined> {
  const { logs } = config;
  if (logs.warehouse === "bigquery") {
    const dataProject = logs.bigqueryProject ?? environment.projectId;
    if (!logs.bigqueryDataset || !dataProject) {
      throw new ConfigError(
        "FERRET_LOG_WAREHOUSE=bigquery needs FERRET_BIGQUERY_DATASET and FERRET_BIGQUERY_PROJECT (or GOOGLE_CLOUD_PROJECT)",
      );
    }
    // The warehouse client libraries load only in a function that reads logs.
    const [{ BigQueryLogWarehouse }, { localBigQueryOptions }] = await Promise.all([
      import("../adapters/bigquery/warehouse.js"),
      import("../adapters/bigquery/client.js"),
    ]);
    return new BigQueryLogWarehouse({
      ...(environment.bigqueryApiEndpoint ? localBigQueryOptions(environment.bigqueryApiEndpoint) : {}),
      dataProject,
      dataset: logs.bigqueryDataset,
      // Jobs run and are billed where the function runs; the dataset may be elsewhere.
      jobProject: environment.projectId ?? dataProject,
      maximumBytesBilled: logs.maxBytesBilled,
      maxRows: logs.maxRows,
      defaultPageSize: Math.min(logs.pageSize, 100),
      timeoutMs: logs.queryTimeoutMs,
    });
  }
  if (!logs.duckdbDir) return undefined;
  const dir = logs.duckdbDir;
  return new LazyLogWarehouse("duckdb", async () =>
    (await import("../adapters/duckdb/warehouse.js")).openDuckDbWarehouse({
      dir,
      maxRows: logs.maxRows,
      defaultPageSize: Math.min(logs.pageSize, 100),
      timeoutMs: logs.queryTimeoutMs,
      onProblem: (problem) => logger.warn(`log directory: ${problem}`),
    }),
  );
}

/**
 * A threat-intel provider built on first lookup. Reading and validating a STIX bundle at
 * start-up made one bad file stop every function of the process; here it fails the lookup
 * that needed it (a failed tool call the investigation records), and the next lookup tries
 * again (lazy()'s rule).
 */
function intelOnFirstLookup(name: string, build: () => ThreatIntel): ThreatIntel {
  const provider = lazy(build);
  return { name, lookup: async (indicator, options) => (await provider()).lookup(indicator, options) };
}

function threatIntel(config: Config, environment: Environment): ThreatIntel | undefined {
  const providers: ThreatIntel[] = [];
  const bundle = config.intel.stixBundle;
  if (bundle)
    providers.push(intelOnFirstLookup(`stix:${basename(bundle)}`, () => StixThreatIntel.fromFile(bundle)));
  if (config.intel.otxEnabled) {
    // Secret Manager mounts the key as OTX_API_KEY in production.
    if (!environment.otxApiKey) throw new ConfigError("FERRET_OTX_ENABLED=true but OTX_API_KEY is not set");
    providers.push(new OtxThreatIntel({ apiKey: environment.otxApiKey }));
  }
  if (providers.length <= 1) return providers[0];
  return new CombinedThreatIntel(providers);
}

/** Table names and descriptions for planning; ferret's log schema's when BigQuery cannot be asked now. */
async function tablesFor(
  warehouse: LogWarehouse,
  config: Config,
  logger: Logger,
): Promise<{ name: string; description: string }[]> {
  // Listing the local tables would load them; the directory says which there will be.
  if (warehouse.dialect === "duckdb" && config.logs.duckdbDir) return duckDbTableList(config.logs.duckdbDir);
  try {
    return (await warehouse.listTables()).map((t) => ({ name: t.name, description: t.description }));
  } catch (error) {
    if (warehouse.dialect !== "bigquery") throw error;
    // A cold start must not fail on a passing BigQuery hiccup; queries will say if it persists.
    logger.warn("could not list the BigQuery log tables; planning with ferret's log schema", {
      error: errorMessage(error),
    });
    return LOG_TABLES.map((t) => ({ name: t.name, description: t.description }));
  }
}

/**
 * The tool registry for this process: which tools exist depends on which data sources
 * are configured, so a plan can never name a tool whose source is missing.
 */
export async function buildToolRegistry(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
  services?: ToolServices,
  analyst?: AnalystServices,
): Promise<BuiltTools> {
  const environment = readEnvironment(env);
  const tools: AnyTool[] = [];
  const warehouse = await openWarehouse(config, environment, logger);
  const tables = warehouse ? await tablesFor(warehouse, config, logger) : [];
  if (warehouse) {
    const runbooks = loadRunbooks();
    // log_query/log_tables stay for the offline playbooks and cheap one-runbook lookups;
    // FERRET_TOOLS_DENY=log_query,log_tables leaves the main agent only the sub-agent.
    tools.push(
      createLogQueryTool({ warehouse, runbooks }),
      createLogTablesTool(warehouse),
      await createLogAnalysisTool(
        analystOptions(config, environment, logger, { warehouse, runbooks, tables }, analyst),
      ),
    );
  } else {
    logger.warn(
      "no log warehouse configured (FERRET_DUCKDB_DIR, or FERRET_LOG_WAREHOUSE=bigquery); log tools are unavailable",
    );
  }
  const intel = threatIntel(config, environment);
  if (intel) tools.push(createThreatIntelLookupTool(intel));
  else
    logger.warn(
      "no threat intel configured (FERRET_STIX_BUNDLE or FERRET_OTX_ENABLED); the intel tool is unavailable",
    );
  if (services) {
    tools.push(
      createRelatedFindingsTool({
        store: services.store,
        embeddings: services.findingEmbeddings,
        embedder: services.embedder,
      }),
    );
  }
  if (config.actions.enabled.length > 0) tools.push(...(await actionTools(config, environment)));
  const mcp = config.mcp.servers.length > 0 ? await openConfiguredMcpTools(config, logger) : undefined;
  if (mcp) tools.push(...mcp.tools);
  return {
    registry: createToolRegistry(tools),
    tables,
    ...(warehouse ? { warehouse } : {}),
    ...(mcp ? { mcp } : {}),
  };
}

/**
 * The MCP SDK and Secret Manager load only when a server is configured, so functions without
 * MCP servers keep their cold import small; Secret Manager only when a server names a credential.
 */
async function openConfiguredMcpTools(config: Config, logger: Logger): Promise<McpTools> {
  const { openMcpTools } = await import("../adapters/mcp/index.js");
  let secrets: SecretSource | undefined;
  if (config.mcp.servers.some((s) => s.credentials.length > 0)) {
    const { SecretManagerSecrets } = await import("../adapters/gcp/secret-manager.js");
    secrets = new SecretManagerSecrets();
  }
  return openMcpTools(config.mcp, secrets, logger);
}

/**
 * The enabled response actions; their Google client libraries load only then, so the default
 * registry (no actions) keeps its cold import small. FERRET_GOOGLEAPIS_ROOT_URL points them at
 * the local stand-in.
 */
async function actionTools(config: Config, environment: Environment): Promise<AnyTool[]> {
  const { createActionTools } = await import("../tools/actions/index.js");
  const [{ IamServiceAccountKeys }, { ComputeInstanceTags }, { ResourceManagerProjectIam }] =
    await Promise.all([
      import("../adapters/iam/service-account-keys.js"),
      import("../adapters/compute/instance-tags.js"),
      import("../adapters/resourcemanager/project-iam.js"),
    ]);
  const options = environment.googleApisRootUrl ? { rootUrl: environment.googleApisRootUrl } : {};
  return createActionTools(
    config.actions.enabled,
    {
      keys: () => new IamServiceAccountKeys(options),
      tags: () => new ComputeInstanceTags(options),
      policies: () => new ResourceManagerProjectIam(options),
    },
    { denyEgressTag: config.actions.denyEgressTag },
  );
}
