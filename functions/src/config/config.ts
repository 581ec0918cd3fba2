import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { z } from "zod";
import { ConfigError } from "../domain/errors.js";
import { SeveritySchema } from "../domain/finding/finding.js";
import { GovernorLimitsSchema } from "../domain/governor.js";
import { AgentPolicySchema } from "../domain/policy.js";
import { anyToolNameMatches, anyToolNameResembles } from "../domain/tool-names.js";
import { ActionsConfigSchema } from "./action-settings.js";
import { McpConfigSchema } from "./mcp-settings.js";
import { DEFAULT_EMBEDDING_MODEL, DEFAULT_GEMINI_MODEL, GeminiModelSettingsShape } from "./model-settings.js";

/**
 * One validated configuration: a YAML/JSON file (optional) overlaid with FERRET_*
 * environment variables. Anything invalid stops start-up with the offending key named;
 * unknown keys are invalid too, so a misspelled `tools.deny` cannot be silently ignored.
 */
const ConfigObjectSchema = z.strictObject({
  model: z
    .strictObject({
      /** auto = Gemini when credentials are configured, otherwise the offline playbook model. */
      provider: z.enum(["auto", "gemini", "offline"]).default("auto"),
      geminiModel: z.string().min(1).default(DEFAULT_GEMINI_MODEL),
      embeddingModel: z.string().min(1).default(DEFAULT_EMBEDDING_MODEL),
      ...GeminiModelSettingsShape,
      /** Context window of geminiModel, for preventive compression. */
      contextWindowTokens: z.number().int().min(8_000).default(1_048_576),
      /** Compress when a request's reported input passes this share of the window. */
      compressAt: z.number().min(0.1).max(0.95).default(0.7),
      /** Keep serving an investigation from the offline model when Gemini stays unavailable. */
      fallbackToOffline: z.boolean().default(true),
      /**
       * After a passing failure (429s, an outage) the offline model serves the investigation this
       * long, then Gemini is asked again; failures waiting cannot cure keep it offline.
       */
      offlineRetryAfterSeconds: z.number().int().min(0).max(86_400).default(300),
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
      /**
       * A finding with no severity and no severity hint in its sourceProperties: investigate
       * it (default: an unknown severity is not a low one) or skip it, saying why either way.
       */
      unspecifiedSeverity: z.enum(["investigate", "skip"]).default("investigate"),
    })
    .prefault({}),
  /** The storm governor: concurrency, rate and token limits, grouping window (domain/governor.ts). */
  governor: z.strictObject(GovernorLimitsSchema.shape).prefault({}),
  tools: z
    .strictObject({
      /** Globs over tool names; a tool runs only when allowed and not denied. */
      allow: z
        .array(z.string().min(1))
        .min(1, "an empty allowlist would let no tool run; deny tools with tools.deny instead")
        .default(["*"]),
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
      /**
       * Bytes one investigation may scan in BigQuery across all its queries (on top of
       * maxBytesBilled per query). A query runs only if the budget left covers its worst case.
       */
      maxBytesPerInvestigation: z
        .number()
        .int()
        .min(1)
        .default(50 * 1024 ** 3),
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
      /** Slack user ids (U…/W…) whose clicks and questions are acted on. */
      allowedUsers: z.array(z.string().regex(/^[UW][A-Z0-9]{2,}$/)).default([]),
      /** Slack user group ids (S…); their members are allowed too (usergroups.users.list). */
      allowedUserGroups: z.array(z.string().regex(/^S[A-Z0-9]{2,}$/)).default([]),
      /** Seconds a signed request may be old (or ahead of our clock) before it is a replay. */
      signatureMaxAgeSeconds: z.number().int().min(30).max(300).default(300),
      /**
       * Read-only tools an answer to a thread question may call, besides reading the stored
       * evidence; still subject to tools.allow/deny. Empty: answers use stored evidence only.
       */
      questionTools: z.array(z.string().min(1)).default(["threat_intel_lookup", "related_findings"]),
      /** Tool calls one answer may make (0: none). */
      questionMaxToolCalls: z.number().int().min(0).max(10).default(3),
      /**
       * Slack user ids (U…/W…) who may Approve or Deny an acting tool call. A list of its own,
       * not the analysts': confirming a verdict and disabling a key are different powers.
       * Empty (the default): nobody can approve, so every acting call waits out its timeout.
       */
      approvers: z.array(z.string().regex(/^[UW][A-Z0-9]{2,}$/)).default([]),
    })
    .prefault({}),
  approvals: z
    .strictObject({
      /**
       * How long the workflow waits on a person's Approve/Deny before it continues without the
       * call. The workflow reads the same variable (FERRET_APPROVAL_TIMEOUT_SECONDS); the
       * investigation's deadline still bounds the wait (docs/decisions/0031).
       */
      timeoutSeconds: z.number().int().min(60).max(43_200).default(900),
    })
    .prefault({}),
  scc: z
    .strictObject({
      /** Write ferret's verdict and the analyst's decision to the finding as security marks. */
      writeback: z.boolean().default(false),
      /** Offer "Mute in SCC" / "Mark inactive in SCC" buttons (needs writeback). */
      analystMuteAndState: z.boolean().default(false),
      /** ferret alone marks a finding INACTIVE; see autoCloseMinConfidence for when. */
      autoClose: z.boolean().default(false),
      autoCloseMinConfidence: z.number().min(0.5).max(1).default(0.9),
    })
    .prefault({}),
  firestore: z.strictObject({ databaseId: z.string().default("(default)") }).prefault({}),
  /** The web console (functions/src/console/, docs/console.md). */
  console: z
    .strictObject({
      /**
       * Who the user is: "iap" verifies Identity-Aware Proxy's signed header against
       * `iapAudience`; "local" (only `ferret console` on loopback) trusts `localUser`.
       */
      auth: z.enum(["iap", "local"]).default("iap"),
      /**
       * IAP's audience for the signed header: /projects/NUMBER/global/backendServices/ID behind the
       * load balancer Terraform deploys (terraform/console.tf), or
       * /projects/NUMBER/locations/REGION/services/NAME for IAP on Cloud Run directly.
       */
      iapAudience: z.string().optional(),
      localUser: z.email().default("analyst@localhost.localdomain"),
    })
    .prefault({}),
  /** MCP tool servers (config file only: a list of servers has no env-variable form). */
  mcp: McpConfigSchema.prefault({}),
  /** Built-in response actions (acting tools, approval-gated); none by default. */
  actions: ActionsConfigSchema.prefault({}),
  /**
   * Where spans and metrics go when deployed (docs/decisions/0055). "google-cloud": spans over
   * OTLP to the Telemetry API (stored in Cloud Trace) and metrics to Cloud Monitoring (Terraform
   * sets it); "none": nowhere, unless
   * the local stack's span file (FERRET_TRACE_FILE) is set.
   */
  telemetry: z
    .strictObject({
      exporter: z.enum(["none", "google-cloud"]).default("none"),
      /**
       * Share of investigations whose trace is exported. The decision is a function of the trace
       * id, which is a function of the investigation id, so every process keeps or drops the same
       * investigation whole. 1 (all) by default: see docs/decisions/0055.
       */
      traceSampleRatio: z.number().min(0).max(1).default(1),
      /** How often metrics are pushed to Cloud Monitoring (its custom metrics take one point per 5 s at most). */
      metricExportIntervalSeconds: z.number().int().min(10).max(3_600).default(60),
    })
    .prefault({}),
  memory: z
    .strictObject({
      /** Cosine similarity a memory needs to be recalled (distance = 1 - similarity). */
      minSimilarity: z.number().min(0).max(1).default(0.8),
      maxRecalled: z.number().int().min(0).max(100).default(32),
    })
    .prefault({}),
});
export const ConfigSchema = ConfigObjectSchema.superRefine((config, ctx) => {
  if (config.logs.maxBytesPerInvestigation < config.logs.maxBytesBilled) {
    ctx.addIssue({
      code: "custom",
      path: ["logs", "maxBytesPerInvestigation"],
      message: `an investigation's scan budget (${config.logs.maxBytesPerInvestigation} bytes) must cover at least one query at the per-query cap (logs.maxBytesBilled = ${config.logs.maxBytesBilled} bytes), or no query could run`,
    });
  }
  if (config.agent.stepDeadlineSeconds > config.agent.totalDeadlineSeconds) {
    ctx.addIssue({
      code: "custom",
      path: ["agent", "stepDeadlineSeconds"],
      message: `a step's deadline (${config.agent.stepDeadlineSeconds}s) cannot exceed the investigation's (agent.totalDeadlineSeconds = ${config.agent.totalDeadlineSeconds}s)`,
    });
  }
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
  FERRET_OFFLINE_RETRY_AFTER_SECONDS: { path: "model.offlineRetryAfterSeconds", type: "number" },
  FERRET_GEMINI_LITE_MODEL: { path: "model.geminiLiteModel", type: "string" },
  FERRET_GEMINI_TIMEOUT_MS: { path: "model.timeoutMs", type: "number" },
  FERRET_GEMINI_MAX_RETRY_WAIT_MS: { path: "model.maxRetryWaitMs", type: "number" },
  FERRET_OFFLINE_DISMISSALS: { path: "model.offlineDismissals", type: "string" },
  FERRET_MAX_STEPS: { path: "agent.maxSteps", type: "number" },
  FERRET_MAX_PARALLEL_STEPS: { path: "agent.maxParallelSteps", type: "number" },
  FERRET_MAX_STEP_ITERATIONS: { path: "agent.maxStepIterations", type: "number" },
  FERRET_MAX_TOOL_CALLS_PER_TURN: { path: "agent.maxToolCallsPerTurn", type: "number" },
  FERRET_MAX_REVISIONS: { path: "agent.maxRevisions", type: "number" },
  FERRET_MAX_CONSECUTIVE_FAILURES: { path: "agent.maxConsecutiveFailures", type: "number" },
  FERRET_REFLECTION: { path: "agent.reflection", type: "string" },
  FERRET_PLANNED_CALLS: { path: "agent.plannedCalls", type: "string" },
  FERRET_FOLD_LAST_REFLECTION: { path: "agent.foldLastReflection", type: "boolean" },
  FERRET_TOKEN_BUDGET: { path: "agent.tokenBudget", type: "number" },
  FERRET_STEP_DEADLINE_SECONDS: { path: "agent.stepDeadlineSeconds", type: "number" },
  FERRET_TOTAL_DEADLINE_SECONDS: { path: "agent.totalDeadlineSeconds", type: "number" },
  FERRET_IGNORE_CATEGORIES: { path: "ingest.ignoreCategories", type: "list" },
  FERRET_MIN_SEVERITY: { path: "ingest.minimumSeverity", type: "string" },
  FERRET_SKIP_MUTED: { path: "ingest.skipMuted", type: "boolean" },
  FERRET_SKIP_INACTIVE: { path: "ingest.skipInactive", type: "boolean" },
  FERRET_UNSPECIFIED_SEVERITY: { path: "ingest.unspecifiedSeverity", type: "string" },
  FERRET_CONSOLE_AUTH: { path: "console.auth", type: "string" },
  FERRET_CONSOLE_IAP_AUDIENCE: { path: "console.iapAudience", type: "string" },
  FERRET_CONSOLE_LOCAL_USER: { path: "console.localUser", type: "string" },
  FERRET_GOVERNOR_MAX_CONCURRENT: { path: "governor.maxConcurrent", type: "number" },
  FERRET_GOVERNOR_PER_HOUR: { path: "governor.perHour", type: "number" },
  FERRET_GOVERNOR_TOKENS_PER_HOUR: { path: "governor.tokensPerHour", type: "number" },
  FERRET_GOVERNOR_TOKENS_PER_DAY: { path: "governor.tokensPerDay", type: "number" },
  FERRET_GOVERNOR_GROUP_WINDOW_MINUTES: { path: "governor.groupWindowMinutes", type: "number" },
  FERRET_TOOLS_ALLOW: { path: "tools.allow", type: "list" },
  FERRET_TOOLS_DENY: { path: "tools.deny", type: "list" },
  FERRET_LOG_WAREHOUSE: { path: "logs.warehouse", type: "string" },
  FERRET_DUCKDB_DIR: { path: "logs.duckdbDir", type: "string" },
  FERRET_BIGQUERY_PROJECT: { path: "logs.bigqueryProject", type: "string" },
  FERRET_BIGQUERY_DATASET: { path: "logs.bigqueryDataset", type: "string" },
  FERRET_BIGQUERY_MAX_BYTES_BILLED: { path: "logs.maxBytesBilled", type: "number" },
  FERRET_BIGQUERY_MAX_BYTES_PER_INVESTIGATION: { path: "logs.maxBytesPerInvestigation", type: "number" },
  FERRET_LOG_MAX_ROWS: { path: "logs.maxRows", type: "number" },
  FERRET_STIX_BUNDLE: { path: "intel.stixBundle", type: "string" },
  FERRET_OTX_ENABLED: { path: "intel.otxEnabled", type: "boolean" },
  FERRET_SLACK_CHANNEL: { path: "slack.channel", type: "string" },
  FERRET_SLACK_CLAIM_STALE_SECONDS: { path: "slack.claimStaleSeconds", type: "number" },
  FERRET_SLACK_ALLOWED_USERS: { path: "slack.allowedUsers", type: "list" },
  FERRET_SLACK_ALLOWED_USER_GROUPS: { path: "slack.allowedUserGroups", type: "list" },
  FERRET_SLACK_SIGNATURE_MAX_AGE_SECONDS: { path: "slack.signatureMaxAgeSeconds", type: "number" },
  FERRET_SLACK_QUESTION_TOOLS: { path: "slack.questionTools", type: "list" },
  FERRET_SLACK_QUESTION_MAX_TOOL_CALLS: { path: "slack.questionMaxToolCalls", type: "number" },
  FERRET_SLACK_APPROVERS: { path: "slack.approvers", type: "list" },
  FERRET_APPROVAL_TIMEOUT_SECONDS: { path: "approvals.timeoutSeconds", type: "number" },
  FERRET_SCC_WRITEBACK: { path: "scc.writeback", type: "boolean" },
  FERRET_SCC_ANALYST_MUTE_AND_STATE: { path: "scc.analystMuteAndState", type: "boolean" },
  FERRET_SCC_AUTO_CLOSE: { path: "scc.autoClose", type: "boolean" },
  FERRET_SCC_AUTO_CLOSE_MIN_CONFIDENCE: { path: "scc.autoCloseMinConfidence", type: "number" },
  FERRET_FIRESTORE_DATABASE: { path: "firestore.databaseId", type: "string" },
  FERRET_MEMORY_MIN_SIMILARITY: { path: "memory.minSimilarity", type: "number" },
  FERRET_MEMORY_MAX_RECALLED: { path: "memory.maxRecalled", type: "number" },
  FERRET_ACTIONS_ENABLED: { path: "actions.enabled", type: "list" },
  FERRET_ACTIONS_DENY_EGRESS_TAG: { path: "actions.denyEgressTag", type: "string" },
  FERRET_TELEMETRY_EXPORTER: { path: "telemetry.exporter", type: "string" },
  FERRET_TRACE_SAMPLE_RATIO: { path: "telemetry.traceSampleRatio", type: "number" },
  FERRET_METRIC_EXPORT_INTERVAL_SECONDS: { path: "telemetry.metricExportIntervalSeconds", type: "number" },
};

/**
 * FERRET_* variables read outside this overlay: FERRET_CONFIG here, the others by the
 * environment reader (environment.ts) or the workflow (its function URLs). Any other FERRET_* variable is a mistake
 * (a typo silently disables the setting it meant), so loadConfig refuses it.
 */
export const PROCESS_ENV_VARIABLES: readonly string[] = [
  "FERRET_CONFIG",
  "FERRET_LOG_LEVEL",
  "FERRET_CHAT_FILE",
  "FERRET_SLACK_API_URL",
  // A local SCC stand-in's host:port (the demo's local stack); never set when deployed.
  "FERRET_SCC_API_ENDPOINT",
  // A local BigQuery stand-in's URL (tests of `ferret investigate --bigquery`); never set when deployed.
  "FERRET_BIGQUERY_API_ENDPOINT",
  // A local stand-in's root URL for the response actions' Google APIs; never set when deployed.
  "FERRET_GOOGLEAPIS_ROOT_URL",
  // The bearer token standing for the function's identity on the local stack (local/identities.ts); never set when deployed.
  "FERRET_LOCAL_IDENTITY_TOKEN",
  // Where the local stack's functions append their spans (platform/trace-file.ts); never set when deployed.
  "FERRET_TRACE_FILE",
  "FERRET_WORKFLOWS_URL",
  "FERRET_WORKFLOW_NAME",
  "FERRET_WORKFLOW_LOCATION",
  // The workflow's function URLs (terraform/templates/investigate.yaml.tftpl, the local stack).
  "FERRET_PLANNER_URL",
  "FERRET_STEP_EXECUTOR_URL",
  "FERRET_REFLECTOR_URL",
  "FERRET_CONCLUDER_URL",
  "FERRET_COMPRESSOR_URL",
];

/** Edit distance with adjacent transpositions (optimal string alignment), for "did you mean". */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

function checkUnknownVariables(env: NodeJS.ProcessEnv): void {
  const known = [...Object.keys(ENV_OVERRIDES), ...PROCESS_ENV_VARIABLES];
  const unknown = Object.keys(env)
    .filter((name) => name.startsWith("FERRET_") && !known.includes(name))
    .sort();
  if (unknown.length === 0) return;
  const problems = unknown.map((name) => {
    const scored = known.map((k) => ({ k, d: editDistance(name, k) })).sort((x, y) => x.d - y.d);
    const close = scored[0] !== undefined && scored[0].d <= Math.max(2, Math.floor(name.length / 6));
    return `${name} is not a ferret variable${close ? ` (did you mean ${scored[0]!.k}?)` : ""}`;
  });
  throw new ConfigError(
    `invalid configuration: ${problems.join("; ")}; the variables are listed in docs/configuration.md`,
    { problems },
  );
}

function coerce(name: string, raw: string, type: Coerce): unknown {
  switch (type) {
    case "string":
      return raw;
    case "list": {
      const items = raw
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      if (items.length === 0)
        throw new ConfigError(
          `${name}=${JSON.stringify(raw)} holds only separators, no entry; unset it to use the default`,
        );
      return items;
    }
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
  checkUnknownVariables(env);
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
      // yaml loads only when a config file is given: deployed functions read the environment.
      const { parse } = createRequire(import.meta.url)("yaml") as typeof import("yaml");
      parsed = parse(text);
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

/**
 * Glob match for finding categories (`ingest.ignoreCategories`): `*` any run, `?` one
 * character, case-insensitive. Never for tool names: those match exactly
 * (domain/tool-names.ts), or an acting `LOOKUP_HOST` passes as the read-only `lookup_host`.
 */
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

/**
 * tools.allow matched exactly (code point for code point, whole name); tools.deny matched
 * exactly or by look (the same UTS #39 skeleton, case aside), so a twin of a denied tool is
 * denied too (domain/tool-names.ts).
 */
export function toolAllowed(config: Pick<Config, "tools">, name: string): boolean {
  return anyToolNameMatches(config.tools.allow, name) && !anyToolNameResembles(config.tools.deny, name);
}
