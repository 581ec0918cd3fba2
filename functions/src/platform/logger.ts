/**
 * Structured JSON logs in the shape Cloud Logging parses from stdout: `severity`,
 * `message`, and the trace under its special key so entries group by request.
 * Secrets are masked before anything is written.
 */
export type LogSeverity = "DEBUG" | "INFO" | "NOTICE" | "WARNING" | "ERROR" | "CRITICAL";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export interface LogSink {
  write(line: string): void;
}

/**
 * Keys whose value is a secret whatever it looks like, compared without case, `-` or `_`.
 * An explicit list rather than a pattern over key names: `token` or `credential` inside a
 * name also matched `inputTokens`, `pageToken` and the SCC category `credentialAccess`, and
 * masked exactly the figures a reader of the logs needs.
 */
const SECRET_KEYS = new Set(
  [
    "token",
    "accessToken",
    "refreshToken",
    "idToken",
    "botToken",
    "slackToken",
    "slackBotToken",
    "secret",
    "clientSecret",
    "signingSecret",
    "slackSigningSecret",
    "password",
    "passwd",
    "apiKey",
    "otxApiKey",
    "geminiApiKey",
    "googleApiKey",
    "x-goog-api-key",
    "x-otx-api-key",
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "privateKey",
    "credentials",
  ].map(normalizeKey),
);

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, "");
}

/** Values that are secrets wherever they appear: in a message, a field, an error's text. */
const SECRET_VALUE = [
  /\bx(?:ox[a-z]|app)-[A-Za-z0-9-]{10,}/g, // Slack bot, user, refresh and app-level tokens
  /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+/g, // Slack webhooks
  /AIza[0-9A-Za-z_-]{35}/g, // Google API keys
  // To the END line, or to the end of the text when a length cap cut the key short.
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{16,}/g,
  // A JWT (OIDC identity tokens, signed service-account assertions): header.payload.signature.
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  // OAuth access tokens Google issues (ya29.) and refresh tokens (1//).
  /\bya29\.[A-Za-z0-9._-]{20,}/g,
  /\b1\/\/0[A-Za-z0-9_-]{30,}/g,
];

export function maskSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return "[depth]";
  if (typeof value === "string") return SECRET_VALUE.reduce((s, re) => s.replace(re, "[masked]"), value);
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, depth + 1));
  if (value instanceof Error) return { name: value.name, message: maskSecrets(value.message, depth + 1) };
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = SECRET_KEYS.has(normalizeKey(k)) && v ? "[masked]" : maskSecrets(v, depth + 1);
    return out;
  }
  return value;
}

/**
 * The same error with secrets masked in its message and stack, for errors that leave our
 * logger's reach: functions-framework prints what a function throws (err.stack) itself.
 */
export function redactError(error: unknown): Error {
  const original = error instanceof Error ? error : new Error(String(error));
  const redacted = new Error(maskSecrets(original.message) as string);
  redacted.name = original.name;
  redacted.stack = maskSecrets(original.stack ?? "") as string;
  return redacted;
}

export interface LoggerOptions {
  sink?: LogSink;
  minSeverity?: LogSeverity;
  project?: string;
  fields?: Record<string, unknown>;
}

const ORDER: LogSeverity[] = ["DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL"];

export function createLogger(options: LoggerOptions = {}): Logger {
  const sink = options.sink ?? { write: (line: string) => process.stdout.write(`${line}\n`) };
  const min = ORDER.indexOf(options.minSeverity ?? "INFO");
  const base = options.fields ?? {};
  const emit = (severity: LogSeverity, message: string, fields?: Record<string, unknown>) => {
    if (ORDER.indexOf(severity) < min) return;
    const merged = { ...base, ...fields };
    const { trace, ...rest } = merged;
    const entry: Record<string, unknown> = {
      severity,
      message: maskSecrets(message),
      time: new Date().toISOString(),
      ...(maskSecrets(rest) as Record<string, unknown>),
    };
    if (typeof trace === "string" && trace) {
      entry["logging.googleapis.com/trace"] = options.project
        ? `projects/${options.project}/traces/${trace}`
        : trace;
    }
    sink.write(JSON.stringify(entry));
  };
  return {
    debug: (m, f) => emit("DEBUG", m, f),
    info: (m, f) => emit("INFO", m, f),
    warn: (m, f) => emit("WARNING", m, f),
    error: (m, f) => emit("ERROR", m, f),
    child: (fields) => createLogger({ ...options, sink, fields: { ...base, ...fields } }),
  };
}

export const silentLogger: Logger = createLogger({ sink: { write: () => {} } });
