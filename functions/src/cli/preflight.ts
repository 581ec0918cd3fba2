import { type Config, toolAllowed } from "../config/config.js";
import { type GeminiCredentials, readGeminiCredentials, wantsGemini } from "../config/environment.js";
import { ConfigError, errorMessage } from "../domain/errors.js";
import { unplacedModel } from "../model/catalog.js";
import { GeminiModel } from "../model/gemini.js";
import { geminiOptionsFromConfig } from "../model/gemini-options.js";
import { lifecycleWarning } from "../model/lifecycle.js";

/**
 * What `ferret investigate` can know before it starts the stack, refused in seconds with
 * what to do instead of a failed investigation minutes later (issue 26): the plan needs a
 * log source or threat intel (the planner refuses a context without either), the chosen
 * model provider needs its credentials (Vertex: application default credentials), and a
 * retired or unknown model id answers 404 (the run would quietly fall back to the offline
 * model). Each refusal is a ConfigError, which the CLI prints and exits 2 on.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The tools whose data sources the local stack would configure (entry/tool-registry.ts builds them). */
const LOG_TOOLS = ["log_analysis", "log_query", "log_tables"] as const;
const INTEL_TOOLS = ["threat_intel_lookup"] as const;

/**
 * The plan needs something to read: logs, intel or an MCP server's tools. Which tools the
 * registry would hold follows from the configured sources, filtered by tools.allow/deny the
 * way the toolbox filters them.
 */
export function checkSources(config: Config): string {
  const logs = config.logs.warehouse === "bigquery" || Boolean(config.logs.duckdbDir);
  const intel = Boolean(config.intel.stixBundle) || config.intel.otxEnabled;
  const mcp = config.mcp.servers.length > 0;
  const offered = [...(logs ? LOG_TOOLS : []), ...(intel ? INTEL_TOOLS : [])].filter((name) =>
    toolAllowed(config, name),
  );
  if (offered.length > 0 || mcp) {
    const what = [
      logs ? `logs (${config.logs.warehouse === "bigquery" ? "BigQuery" : "a log directory"})` : "",
      intel ? "threat intel" : "",
      mcp ? `${config.mcp.servers.length} MCP server(s)` : "",
    ].filter(Boolean);
    return `sources: ${what.join(", ")}`;
  }
  const denied = logs || intel;
  throw new ConfigError(
    denied
      ? `nothing to investigate with: tools.allow/tools.deny (FERRET_TOOLS_ALLOW / FERRET_TOOLS_DENY) leave none of ${[...(logs ? LOG_TOOLS : []), ...(intel ? INTEL_TOOLS : [])].join(", ")}, so the planner would refuse every plan. Allow at least one of them.`
      : "nothing to investigate with: no logs and no threat intel are configured, so the planner would refuse every plan. Give it logs (--logs DIR with exported log rows, a scenario directory with logs/, or --bigquery PROJECT.DATASET for your Cloud Logging sink) or intel (FERRET_STIX_BUNDLE=bundle.json, or FERRET_OTX_ENABLED=true with OTX_API_KEY).",
  );
}

/** How a pre-flight asks for a Google access token (ADC); a stub in unit tests. */
export type AccessTokenProbe = () => Promise<void>;

/** Application default credentials, as the client libraries find them (google-auth-library). */
export const adcProbe: AccessTokenProbe = async () => {
  const { GoogleAuth } = await import("google-auth-library");
  const auth = new GoogleAuth({ scopes: ["https://www.googleapis.com/auth/cloud-platform"] });
  await (await auth.getClient()).getAccessToken();
};

const ADC_HELP =
  "run `gcloud auth application-default login` (or set GOOGLE_APPLICATION_CREDENTIALS to a key file)";

/** ADC for what needs it (`needs`: e.g. "Vertex AI", "reading the finding from SCC"), within `timeoutMs`. */
export async function checkApplicationDefaultCredentials(
  needs: readonly string[],
  probe: AccessTokenProbe = adcProbe,
  timeoutMs = 15_000,
): Promise<string> {
  try {
    await withTimeout(probe(), timeoutMs, "no answer from the credential source");
  } catch (error) {
    throw new ConfigError(
      `${needs.join(" and ")} need${needs.length > 1 ? "" : "s"} Google application default credentials, and none are usable: ${firstLine(errorMessage(error)).replace(/\.+$/, "")}. To fix: ${ADC_HELP}.`,
    );
  }
  return `application default credentials: usable (for ${needs.join(", ")})`;
}

/** What the model check may ask Gemini (models.get); a stub in unit tests. */
export type ModelLookup = (
  credentials: GeminiCredentials,
  config: Config,
) => Promise<Array<{ model: string; ok: boolean; error?: string; retryable?: boolean }>>;

const geminiLookup: ModelLookup = (credentials, config) =>
  new GeminiModel({
    ...credentials,
    ...geminiOptionsFromConfig(config.model),
    timeoutMs: 10_000,
  }).checkModels();

export interface ModelCheckOptions {
  provider: "auto" | "gemini" | "offline";
  config: Config;
  env: Env;
  now: Date;
  lookup?: ModelLookup;
  adc?: AccessTokenProbe;
  timeoutMs?: number;
}

/**
 * The model: credentials for the chosen provider, then each configured id asked of the
 * provider (models.get). A retired id is refused even when the provider cannot be asked,
 * from the shutdown dates ferret knows (model/lifecycle.ts); a provider that cannot be
 * reached is said, not refused (the run retries and falls back like any other).
 */
export async function checkModel(options: ModelCheckOptions): Promise<string[]> {
  const { config, env, provider } = options;
  const credentials = readGeminiCredentials(env);
  if (!wantsGemini(provider, credentials)) return ["model: the offline playbook model (no LLM)"];
  const lines: string[] = [];
  if (credentials.vertexai && !credentials.project && !credentials.apiKey) {
    throw new ConfigError(
      "GOOGLE_GENAI_USE_VERTEXAI=true needs GOOGLE_CLOUD_PROJECT (your project) and GOOGLE_CLOUD_LOCATION (e.g. global), or unset it and set GEMINI_API_KEY; --model offline runs without an LLM.",
    );
  }
  if (!credentials.vertexai && !credentials.apiKey) {
    throw new ConfigError(
      "--model gemini (FERRET_MODEL_PROVIDER=gemini) needs Gemini credentials: set GEMINI_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION; --model offline runs without an LLM.",
    );
  }
  if (credentials.vertexai && credentials.project) {
    try {
      lines.push(await checkApplicationDefaultCredentials(["Vertex AI"], options.adc, options.timeoutMs));
    } catch (error) {
      throw new ConfigError(
        `${errorMessage(error)} Or use the Gemini Developer API instead: unset GOOGLE_GENAI_USE_VERTEXAI and set GEMINI_API_KEY; --model offline runs without an LLM.`,
      );
    }
  }
  const where = credentials.vertexai
    ? `Vertex AI (project ${credentials.project ?? "express mode"}, ${credentials.location ?? "global"})`
    : "the Gemini Developer API";
  const variables = modelVariables(config);
  // An id ferret cannot place would go out without its generation's rules (thinking, signatures).
  const unplaced = [...variables].flatMap(([model, names]) => {
    const why = unplacedModel(model, names.includes("FERRET_GEMINI_EMBEDDING_MODEL"));
    return why ? [`${model} (${names.join(" / ")}): ${why}`] : [];
  });
  if (unplaced.length > 0) {
    throw new ConfigError(
      `ferret cannot place the configured model${unplaced.length > 1 ? "s" : ""}: ${unplaced.join("; ")}. Set the variable to a listed model or alias (the defaults are current), or run --model offline.`,
    );
  }
  const retiredByDate = [...variables.keys()].flatMap((model) => {
    const warning = lifecycleWarning(model, options.now);
    return warning && /was shut down/.test(warning) ? [{ model, warning }] : [];
  });
  let answers: Awaited<ReturnType<ModelLookup>> = [];
  try {
    answers = await withTimeout(
      (options.lookup ?? geminiLookup)(credentials, config),
      options.timeoutMs ?? 15_000,
      `${where} did not answer`,
    );
  } catch (error) {
    lines.push(
      `model: could not ask ${where} about the models (${firstLine(errorMessage(error))}); going on`,
    );
  }
  const refused = answers.filter((a) => !a.ok && a.retryable === false);
  const unknown = [
    ...refused.map((a) => ({ model: a.model, why: a.error ?? "refused" })),
    ...retiredByDate
      .filter((r) => !answers.some((a) => a.model === r.model && a.ok))
      .filter((r) => !refused.some((a) => a.model === r.model))
      .map((r) => ({ model: r.model, why: r.warning })),
  ];
  if (unknown.length > 0) {
    const problems = unknown.map(
      (u) => `${u.model} (${variables.get(u.model)?.join(" / ") ?? "model.roles"}): ${firstLine(u.why)}`,
    );
    throw new ConfigError(
      `${where} cannot serve the configured model${unknown.length > 1 ? "s" : ""}: ${problems.join("; ")}. Set the variable to a current model (the defaults are current), or run --model offline.`,
    );
  }
  for (const a of answers.filter((x) => !x.ok))
    lines.push(`model: ${a.model}: ${firstLine(a.error ?? "no answer")} (going on; the run retries)`);
  const okIds = answers.filter((a) => a.ok).map((a) => a.model);
  lines.push(
    okIds.length > 0
      ? `model: Gemini on ${where}: ${okIds.join(", ")} available`
      : `model: Gemini on ${where}`,
  );
  return lines;
}

/** Each model id the config names, with the variables that name it (for "what to do"). */
function modelVariables(config: Config): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (model: string, variable: string) => out.set(model, [...(out.get(model) ?? []), variable]);
  add(config.model.geminiModel, "FERRET_GEMINI_MODEL");
  add(config.model.geminiLiteModel, "FERRET_GEMINI_LITE_MODEL");
  add(config.model.embeddingModel, "FERRET_GEMINI_EMBEDDING_MODEL");
  for (const [role, settings] of Object.entries(config.model.roles ?? {}))
    if (settings.model !== "main" && settings.model !== "lite")
      add(settings.model, `model.roles.${role}.model`);
  return out;
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 400);
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} within ${Math.round(ms / 1000)} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A table of the log dataset as describeSinkTables reads it (adapters/bigquery/sink-coverage.ts). */
export interface DatasetTable {
  name: string;
  type: string;
  rows?: number;
  partitionedBy?: string;
  from?: number;
  to?: number;
}

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The log dataset against the finding: it holds the Cloud Logging sink's tables (ferret's
 * log schema names, partitioned as `--use-partitioned-tables` writes them, not date-sharded), and
 * their time span reaches the finding's event time (a day's slack either side: the sink writes
 * late entries, and the agent's windows reach around the event). Anything else would let the
 * run start and find nothing, so it is refused with what to do.
 */
export function checkDataset(
  dataset: string,
  tables: readonly DatasetTable[],
  eventTime: string,
  logTables: readonly string[],
): string {
  const where = `--bigquery ${dataset}`;
  if (tables.length === 0)
    throw new ConfigError(
      `${where}: the dataset has no tables. Point it at the dataset your Cloud Logging sink writes to (\`gcloud logging sinks describe SINK\` shows the destination).`,
    );
  const known = new Set(logTables);
  const sharded = tables.filter((t) => {
    const m = /^(.+)_(\d{8})$/.exec(t.name);
    return m && known.has(m[1] as string);
  });
  const logs = tables.filter((t) => known.has(t.name) && t.type !== "EXTERNAL");
  if (logs.length === 0) {
    const found = tables
      .map((t) => t.name)
      .slice(0, 8)
      .join(", ");
    throw new ConfigError(
      sharded.length > 0
        ? `${where}: the sink writes date-sharded tables (${sharded[0]?.name}, …); ferret queries partitioned ones. Update the sink: gcloud logging sinks update SINK --use-partitioned-tables (new entries then land in ${[...new Set(sharded.map((t) => t.name.replace(/_\d{8}$/, "")))].slice(0, 3).join(", ")}).`
        : `${where}: none of the tables is a Cloud Logging sink table ferret knows (${logTables.slice(0, 4).join(", ")}, …); found ${found}${tables.length > 8 ? ", …" : ""}. Point --bigquery at your log sink's dataset.`,
    );
  }
  const event = Date.parse(eventTime);
  const spans = logs.map(
    (t) => `${t.name} ${t.from !== undefined ? day(t.from) : "?"} → ${t.to !== undefined ? day(t.to) : "?"}`,
  );
  const covering = logs.filter(
    (t) =>
      (t.from === undefined || t.from - DAY_MS <= event) && (t.to === undefined || event <= t.to + DAY_MS),
  );
  if (Number.isFinite(event) && covering.length === 0) {
    throw new ConfigError(
      `${where}: the finding happened at ${eventTime}, outside the time the log tables cover (${spans.join("; ")}), so ferret would find no logs for it. Investigate a finding from that span, or point --bigquery at a dataset that covers it.`,
    );
  }
  const empty = logs.filter((t) => t.rows === 0).map((t) => t.name);
  return `logs: ${dataset}: ${spans.join("; ")}${empty.length ? ` (no rows yet: ${empty.join(", ")})` : ""}; the finding's event time ${eventTime} is inside`;
}
