import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError } from "../domain/errors.js";
import { SeveritySchema } from "../domain/finding.js";
import { AgentPolicySchema } from "../domain/policy.js";

/**
 * One validated configuration: a YAML/JSON file (optional) overlaid with FERRET_*
 * environment variables. Anything invalid stops start-up with the offending key named;
 * unknown keys are invalid too, so a misspelled `tools.deny` cannot be silently ignored.
 */
export const ConfigSchema = z.strictObject({
  model: z
    .strictObject({
      /** auto = Gemini when credentials are configured, otherwise the offline playbook model. */
      provider: z.enum(["auto", "gemini", "offline"]).default("auto"),
      geminiModel: z.string().min(1).default("gemini-2.5-flash"),
      embeddingModel: z.string().min(1).default("gemini-embedding-001"),
      /** Context window of geminiModel, for preventive compression. */
      contextWindowTokens: z.number().int().min(8_000).default(1_048_576),
      /** Compress when a request's reported input passes this share of the window. */
      compressAt: z.number().min(0.1).max(0.95).default(0.7),
      /** Keep serving an investigation from the offline model when Gemini stays unavailable. */
      fallbackToOffline: z.boolean().default(true),
      /**
       * What happens to a benign/false_positive from the offline playbook model: "hold" ends it
       * as a draft for a person (needs_human), "allow" lets it conclude. Rules are not judgement.
       */
      offlineDismissals: z.enum(["hold", "allow"]).default("hold"),
    })
    .prefault({}),
  agent: z.strictObject(AgentPolicySchema.shape).prefault({}),
  ingest: z
    .strictObject({
      /** Category globs never investigated, e.g. "Persistence: IAM Anomalous Grant" or "Discovery: *". */
      ignoreCategories: z.array(z.string().min(1)).default([]),
      minimumSeverity: SeveritySchema.default("LOW"),
      skipMuted: z.boolean().default(true),
      skipInactive: z.boolean().default(true),
    })
    .prefault({}),
  tools: z
    .strictObject({
      /** Globs over tool names; a tool runs only when allowed and not denied. */
      allow: z.array(z.string().min(1)).default(["*"]),
      deny: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  logs: z
    .strictObject({
      warehouse: z.enum(["duckdb", "bigquery"]).default("duckdb"),
      /** Directory of <table>.jsonl files for the DuckDB warehouse. */
      duckdbDir: z.string().optional(),
      bigqueryProject: z.string().optional(),
      bigqueryDataset: z.string().optional(),
      maxBytesBilled: z
        .number()
        .int()
        .min(1)
        .default(10 * 1024 ** 3),
      maxRows: z.number().int().min(1).max(10_000).default(1_000),
      pageSize: z.number().int().min(1).max(500).default(50),
      queryTimeoutMs: z.number().int().min(100).default(30_000),
    })
    .prefault({}),
  intel: z
    .strictObject({
      stixBundle: z.string().optional(),
      otxEnabled: z.boolean().default(false),
    })
    .prefault({}),
  slack: z
    .strictObject({
      channel: z.string().optional(),
      /**
       * A Slack post claimed this long ago and never finished is presumed dead and retried.
       * Must exceed the notifier's function timeout (Terraform sets timeout + 60 s).
       */
      claimStaleSeconds: z.number().int().min(30).max(3_600).default(120),
    })
    .prefault({}),
  firestore: z.strictObject({ databaseId: z.string().default("(default)") }).prefault({}),
  memory: z
    .strictObject({
      /** Cosine similarity a memory needs to be recalled (distance = 1 - similarity). */
      minSimilarity: z.number().min(0).max(1).default(0.8),
      maxRecalled: z.number().int().min(0).max(100).default(32),
    })
    .prefault({}),
});
export type Config = z.infer<typeof ConfigSchema>;

type Coerce = "string" | "number" | "boolean" | "list";

/** Environment overrides: variable → config path. The table is the documentation. */
export const ENV_OVERRIDES: Record<string, { path: string; type: Coerce }> = {
  FERRET_MODEL_PROVIDER: { path: "model.provider", type: "string" },
  FERRET_GEMINI_MODEL: { path: "model.geminiModel", type: "string" },
  FERRET_GEMINI_EMBEDDING_MODEL: { path: "model.embeddingModel", type: "string" },
  FERRET_CONTEXT_WINDOW_TOKENS: { path: "model.contextWindowTokens", type: "number" },
  FERRET_COMPRESS_AT: { path: "model.compressAt", type: "number" },
  FERRET_FALLBACK_TO_OFFLINE: { path: "model.fallbackToOffline", type: "boolean" },
  FERRET_OFFLINE_DISMISSALS: { path: "model.offlineDismissals", type: "string" },
  FERRET_MAX_STEPS: { path: "agent.maxSteps", type: "number" },
  FERRET_MAX_PARALLEL_STEPS: { path: "agent.maxParallelSteps", type: "number" },
  FERRET_MAX_STEP_ITERATIONS: { path: "agent.maxStepIterations", type: "number" },
  FERRET_MAX_REVISIONS: { path: "agent.maxRevisions", type: "number" },
  FERRET_MAX_CONSECUTIVE_FAILURES: { path: "agent.maxConsecutiveFailures", type: "number" },
  FERRET_REFLECTION: { path: "agent.reflection", type: "string" },
  FERRET_TOKEN_BUDGET: { path: "agent.tokenBudget", type: "number" },
  FERRET_STEP_DEADLINE_SECONDS: { path: "agent.stepDeadlineSeconds", type: "number" },
  FERRET_TOTAL_DEADLINE_SECONDS: { path: "agent.totalDeadlineSeconds", type: "number" },
  FERRET_IGNORE_CATEGORIES: { path: "ingest.ignoreCategories", type: "list" },
  FERRET_MIN_SEVERITY: { path: "ingest.minimumSeverity", type: "string" },
  FERRET_SKIP_MUTED: { path: "ingest.skipMuted", type: "boolean" },
  FERRET_SKIP_INACTIVE: { path: "ingest.skipInactive", type: "boolean" },
  FERRET_TOOLS_ALLOW: { path: "tools.allow", type: "list" },
  FERRET_TOOLS_DENY: { path: "tools.deny", type: "list" },
  FERRET_LOG_WAREHOUSE: { path: "logs.warehouse", type: "string" },
  FERRET_DUCKDB_DIR: { path: "logs.duckdbDir", type: "string" },
  FERRET_BIGQUERY_PROJECT: { path: "logs.bigqueryProject", type: "string" },
  FERRET_BIGQUERY_DATASET: { path: "logs.bigqueryDataset", type: "string" },
  FERRET_BIGQUERY_MAX_BYTES_BILLED: { path: "logs.maxBytesBilled", type: "number" },
  FERRET_LOG_MAX_ROWS: { path: "logs.maxRows", type: "number" },
  FERRET_STIX_BUNDLE: { path: "intel.stixBundle", type: "string" },
  FERRET_OTX_ENABLED: { path: "intel.otxEnabled", type: "boolean" },
  FERRET_SLACK_CHANNEL: { path: "slack.channel", type: "string" },
  FERRET_SLACK_CLAIM_STALE_SECONDS: { path: "slack.claimStaleSeconds", type: "number" },
  FERRET_FIRESTORE_DATABASE: { path: "firestore.databaseId", type: "string" },
  FERRET_MEMORY_MIN_SIMILARITY: { path: "memory.minSimilarity", type: "number" },
  FERRET_MEMORY_MAX_RECALLED: { path: "memory.maxRecalled", type: "number" },
};

function coerce(name: string, raw: string, type: Coerce): unknown {
  switch (type) {
    case "string":
      return raw;
    case "list":
      return raw
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    case "boolean":
      if (/^(true|1|yes)$/i.test(raw)) return true;
      if (/^(false|0|no)$/i.test(raw)) return false;
      throw new ConfigError(`${name}=${JSON.stringify(raw)} is not a boolean (use true or false)`);
    case "number": {
      const n = Number(raw);
      if (raw.trim() === "" || !Number.isFinite(n))
        throw new ConfigError(`${name}=${JSON.stringify(raw)} is not a number`);
      return n;
    }
  }
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== "object" || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1) as string] = value;
}

export interface LoadConfigOptions {
  file?: string;
  env?: NodeJS.ProcessEnv;
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const file = options.file ?? env.FERRET_CONFIG;
  let raw: Record<string, unknown> = {};
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = parseYaml(text);
    } catch (error) {
      throw new ConfigError(`config file ${file} is not valid YAML: ${(error as Error).message}`);
    }
    if (parsed !== null && (typeof parsed !== "object" || Array.isArray(parsed))) {
      throw new ConfigError(`config file ${file} must hold a mapping at the top level`);
    }
    raw = (parsed as Record<string, unknown> | null) ?? {};
  }
  const sources = new Map<string, string>();
  for (const [name, { path, type }] of Object.entries(ENV_OVERRIDES)) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    setPath(raw, path, coerce(name, value, type));
    sources.set(path, name);
  }
  const result = ConfigSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const path = issue.path.join(".");
      const origin = sources.get(path) ?? (file ? [file, path].filter(Boolean).join(": ") : path);
      return `${origin}: ${issue.message}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join("; ")}`, { problems });
  }
  return result.data;
}

/** Glob match for tool and category names: `*` any run, `?` one character. */
export function globMatch(pattern: string, value: string): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
    "i",
  );
  return re.test(value);
}

export function toolAllowed(config: Pick<Config, "tools">, name: string): boolean {
  return (
    config.tools.allow.some((p) => globMatch(p, name)) && !config.tools.deny.some((p) => globMatch(p, name))
  );
}
