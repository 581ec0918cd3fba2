import { z } from "zod";
import { ConfigError } from "../domain/errors.js";

/**
 * The process environment a function instance runs in: where it is (project, region), who it
 * talks to (the workflow, Slack) and the credentials Secret Manager mounts. Kept apart from
 * the Config (config.ts) because none of it belongs in a config file — secrets least of all
 * — but validated the same way and read in one place: the composition roots hand
 * `readEnvironment(process.env)` on, and nothing else reads process.env
 * (test/unit/config/process-env.test.ts enforces it).
 */
export const LOG_LEVELS = ["DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL"] as const;
export const LogLevelSchema = z.enum(LOG_LEVELS);

const optional = z
  .string()
  .optional()
  .transform((value) => {
    const trimmed = value?.trim();
    return trimmed ? trimmed : undefined;
  });

const flag = z
  .string()
  .optional()
  .transform((value) => value !== undefined && ["true", "1", "yes"].includes(value.trim().toLowerCase()));

/** Variable name → how it is read; the keys are the variables, so errors name them. */
const EnvironmentVariablesSchema = z.object({
  GOOGLE_CLOUD_PROJECT: optional,
  GCLOUD_PROJECT: optional,
  GOOGLE_CLOUD_LOCATION: optional,
  FERRET_LOG_LEVEL: optional.pipe(LogLevelSchema.optional()),
  // Gemini credentials, the variables @google/genai documents (read here so the SDK never
  // reads process.env behind our back).
  GOOGLE_GENAI_USE_VERTEXAI: flag,
  GOOGLE_API_KEY: optional,
  GEMINI_API_KEY: optional,
  OTX_API_KEY: optional,
  SLACK_BOT_TOKEN: optional,
  SLACK_SIGNING_SECRET: optional,
  FERRET_SLACK_API_URL: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
  FERRET_CHAT_FILE: optional,
  FERRET_WORKFLOWS_URL: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
  FERRET_WORKFLOW_NAME: optional,
  FERRET_WORKFLOW_LOCATION: optional,
  FERRET_SCC_API_ENDPOINT: optional,
  // A local BigQuery stand-in's root URL (tests of `investigate --bigquery`); like the root URL
  // below, requests to it carry no Google credentials, so only loopback is accepted.
  FERRET_BIGQUERY_API_ENDPOINT: optional.pipe(
    z.url({ protocol: /^http$/, hostname: /^(127\.0\.0\.1|localhost|\[::1\])$/ }).optional(),
  ),
  // Requests to it carry no Google credentials, so only a loopback stand-in makes sense.
  FERRET_GOOGLEAPIS_ROOT_URL: optional.pipe(
    z.url({ protocol: /^http$/, hostname: /^(127\.0\.0\.1|localhost|\[::1\])$/ }).optional(),
  ),
  // The identity the local stack gives this function (local/identities.ts); unset in GCP,
  // where the function's service account is its identity.
  FERRET_LOCAL_IDENTITY_TOKEN: optional,
  FERRET_TRACE_FILE: optional,
});

export interface GeminiCredentials {
  vertexai: boolean;
  project?: string;
  location?: string;
  /** Developer API key, or a Vertex express-mode key. */
  apiKey?: string;
}

export interface Environment {
  /** GOOGLE_CLOUD_PROJECT (or the older GCLOUD_PROJECT). */
  projectId?: string;
  location?: string;
  logLevel: z.infer<typeof LogLevelSchema>;
  gemini: GeminiCredentials;
  otxApiKey?: string;
  slack: { botToken?: string; signingSecret?: string; apiUrl?: string; chatFile?: string };
  /** The local executions service (url), or the deployed workflow (name, location). */
  workflows: { url?: string; name: string; location: string };
  /** A local SCC stand-in (loopback host:port) for the official client; unset in production. */
  sccApiEndpoint?: string;
  /** A local BigQuery stand-in (loopback URL) for the log warehouse; unset in production. */
  bigqueryApiEndpoint?: string;
  /** A local stand-in's root URL for the IAM, Compute and Resource Manager REST APIs; unset in production. */
  googleApisRootUrl?: string;
  /** Set by the local stack only: the bearer token that stands for this function's identity. */
  /** The local stack's span file (FERRET_TRACE_FILE); spans are recorded only when set. */
  traceFile?: string;
  localIdentityToken?: string;
}

type GeminiVariables = Pick<
  z.output<typeof EnvironmentVariablesSchema>,
  | "GOOGLE_GENAI_USE_VERTEXAI"
  | "GOOGLE_API_KEY"
  | "GEMINI_API_KEY"
  | "GOOGLE_CLOUD_PROJECT"
  | "GOOGLE_CLOUD_LOCATION"
>;

/** The Gemini credentials alone (the CLI and the doctor ask without a whole environment). */
export function readGeminiCredentials(env: Readonly<Record<string, string | undefined>>): GeminiCredentials {
  const schema = EnvironmentVariablesSchema.pick({
    GOOGLE_GENAI_USE_VERTEXAI: true,
    GOOGLE_API_KEY: true,
    GEMINI_API_KEY: true,
    GOOGLE_CLOUD_PROJECT: true,
    GOOGLE_CLOUD_LOCATION: true,
  });
  return geminiCredentials(schema.parse(env));
}

function geminiCredentials(v: GeminiVariables): GeminiCredentials {
  const apiKey = v.GOOGLE_API_KEY ?? v.GEMINI_API_KEY;
  if (!v.GOOGLE_GENAI_USE_VERTEXAI) return { vertexai: false, ...(apiKey ? { apiKey } : {}) };
  // Project/location win over a key on Vertex, as in the SDK: a key means express mode.
  if (v.GOOGLE_CLOUD_PROJECT)
    return {
      vertexai: true,
      project: v.GOOGLE_CLOUD_PROJECT,
      location: v.GOOGLE_CLOUD_LOCATION ?? "global",
    };
  return { vertexai: true, ...(apiKey ? { apiKey } : {}) };
}

/** The environment, validated; a bad value stops start-up naming its variable. */
export function readEnvironment(env: Readonly<Record<string, string | undefined>>): Environment {
  const parsed = EnvironmentVariablesSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join(".")}=${JSON.stringify(env[String(issue.path[0])])}: ${issue.message}`,
    );
    throw new ConfigError(`invalid environment: ${problems.join("; ")}`, { problems });
  }
  const v = parsed.data;
  const projectId = v.GOOGLE_CLOUD_PROJECT ?? v.GCLOUD_PROJECT;
  return {
    ...(projectId ? { projectId } : {}),
    ...(v.GOOGLE_CLOUD_LOCATION ? { location: v.GOOGLE_CLOUD_LOCATION } : {}),
    logLevel: v.FERRET_LOG_LEVEL ?? "INFO",
    gemini: geminiCredentials(v),
    ...(v.OTX_API_KEY ? { otxApiKey: v.OTX_API_KEY } : {}),
    slack: {
      ...(v.SLACK_BOT_TOKEN ? { botToken: v.SLACK_BOT_TOKEN } : {}),
      ...(v.SLACK_SIGNING_SECRET ? { signingSecret: v.SLACK_SIGNING_SECRET } : {}),
      ...(v.FERRET_SLACK_API_URL ? { apiUrl: v.FERRET_SLACK_API_URL } : {}),
      ...(v.FERRET_CHAT_FILE ? { chatFile: v.FERRET_CHAT_FILE } : {}),
    },
    workflows: {
      ...(v.FERRET_WORKFLOWS_URL ? { url: v.FERRET_WORKFLOWS_URL } : {}),
      name: v.FERRET_WORKFLOW_NAME ?? "ferret-investigate",
      location: v.FERRET_WORKFLOW_LOCATION ?? v.GOOGLE_CLOUD_LOCATION ?? "us-central1",
    },
    ...(v.FERRET_SCC_API_ENDPOINT ? { sccApiEndpoint: v.FERRET_SCC_API_ENDPOINT } : {}),
    ...(v.FERRET_BIGQUERY_API_ENDPOINT ? { bigqueryApiEndpoint: v.FERRET_BIGQUERY_API_ENDPOINT } : {}),
    ...(v.FERRET_GOOGLEAPIS_ROOT_URL ? { googleApisRootUrl: v.FERRET_GOOGLEAPIS_ROOT_URL } : {}),
    ...(v.FERRET_LOCAL_IDENTITY_TOKEN ? { localIdentityToken: v.FERRET_LOCAL_IDENTITY_TOKEN } : {}),
    ...(v.FERRET_TRACE_FILE ? { traceFile: v.FERRET_TRACE_FILE } : {}),
  };
}

/** Whether the credentials reach Gemini at all; otherwise `auto` means the offline model. */
export function hasGeminiCredentials(credentials: GeminiCredentials): boolean {
  return credentials.vertexai
    ? Boolean(credentials.project ?? credentials.apiKey)
    : Boolean(credentials.apiKey);
}

/** Whether the primary model is Gemini: asked for, or `auto` with credentials present. */
export function wantsGemini(
  provider: "auto" | "gemini" | "offline",
  credentials: GeminiCredentials,
): boolean {
  return provider === "gemini" || (provider === "auto" && hasGeminiCredentials(credentials));
}
