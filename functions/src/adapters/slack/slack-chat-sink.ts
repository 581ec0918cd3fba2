import {
  LogLevel,
  type RetryOptions,
  type Logger as SlackLogger,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  WebClient,
} from "@slack/web-api";
import { ChatError, ConfigError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import { type Logger, silentLogger } from "../../platform/logger.js";
import type { ChatInteractions, ChatMessage, ChatSink } from "../../ports/chat-sink.js";
import { toPostMessageArgs, toUpdateArgs } from "./post-args.js";

export interface SlackRetryOptions {
  /** Extra attempts after the first, for 429 (after Retry-After), 5xx and network errors. */
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
}

export interface SlackChatSinkOptions {
  /** Bot token (xoxb-…); needs chat:write and the bot invited to the channel. */
  token: string;
  /** Channel id (C…) or name. */
  channel: string;
  /** Base URL of the Web API; tests point it at a local receiver. Must end with a slash. */
  slackApiUrl?: string;
  retry?: SlackRetryOptions;
  /** Per-request timeout. */
  timeoutMs?: number;
  logger?: Logger;
}

/**
 * A handful of quick retries, not the SDK's default of ten over thirty minutes: the notifier
 * runs inside a Pub/Sub delivery, and once these are spent a retryable error hands the retry
 * to Pub/Sub's backoff instead of holding the function open.
 */
export const DEFAULT_SLACK_RETRY: SlackRetryOptions = {
  retries: 3,
  minTimeoutMs: 1_000,
  maxTimeoutMs: 8_000,
};
export const DEFAULT_SLACK_TIMEOUT_MS = 10_000;

// Slack answers these with ok:false although a later attempt can succeed.
const RETRYABLE_PLATFORM_ERRORS = new Set([
  "ratelimited",
  "rate_limited",
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
]);

const HINTS: Record<string, string> = {
  invalid_auth: "the bot token is invalid",
  not_authed: "no bot token was sent",
  token_revoked: "the bot token was revoked",
  account_inactive: "the bot user is deactivated",
  channel_not_found: "the channel does not exist or the bot cannot see it",
  not_in_channel: "invite the bot to the channel",
  is_archived: "the channel is archived",
  missing_scope: "the bot token lacks chat:write",
  invalid_blocks: "Slack rejected the Block Kit payload",
  msg_too_long: "the message is too long",
};

/** Maps @slack/web-api errors to ChatError, saying whether retrying can help. */
export function toChatError(error: unknown, channel: string, method = "chat.postMessage"): ChatError {
  if (error instanceof WebAPIPlatformError) {
    const code = error.data.error;
    const hint = HINTS[code];
    return new ChatError(
      `Slack refused ${method}: ${code}${hint ? ` (${hint})` : ""}`,
      RETRYABLE_PLATFORM_ERRORS.has(code),
      {
        cause: error,
        details: { slackError: code, channel },
      },
    );
  }
  if (error instanceof WebAPIRateLimitedError) {
    return new ChatError(`Slack rate limited ${method} (retry after ${error.retryAfter}s)`, true, {
      cause: error,
      details: { slackError: "ratelimited", retryAfterSeconds: error.retryAfter, channel },
    });
  }
  if (error instanceof WebAPIHTTPError) {
    const retryable = error.statusCode >= 500 || error.statusCode === 429 || error.statusCode === 408;
    return new ChatError(`Slack answered HTTP ${error.statusCode} to ${method}`, retryable, {
      cause: error,
      details: { httpStatus: error.statusCode, channel },
    });
  }
  if (error instanceof WebAPIRequestError) {
    // Network failures, timeouts, and 429s that outlasted the retry budget all land here.
    return new ChatError(`could not reach Slack: ${error.original.message}`, true, {
      cause: error,
      details: { channel },
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ChatError(`posting to Slack failed: ${message}`, false, { cause: error, details: { channel } });
}

function slackLogger(logger: Logger): SlackLogger {
  let level = LogLevel.WARN;
  const text = (msg: unknown[]) => msg.map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join(" ");
  return {
    debug: (...msg: unknown[]) => logger.debug(text(msg), { component: "slack-web-api" }),
    info: (...msg: unknown[]) => logger.info(text(msg), { component: "slack-web-api" }),
    warn: (...msg: unknown[]) => logger.warn(text(msg), { component: "slack-web-api" }),
    error: (...msg: unknown[]) => logger.error(text(msg), { component: "slack-web-api" }),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

/** Posts to Slack through the Web API; the only file that imports @slack/web-api. */
export class SlackChatSink implements ChatSink, ChatInteractions {
  private readonly client: WebClient;
  private readonly channel: string;

  constructor(options: SlackChatSinkOptions) {
    if (!options.token) throw new ConfigError("SlackChatSink needs a bot token");
    if (!options.channel) throw new ConfigError("SlackChatSink needs a channel");
    this.channel = options.channel;
    const retry = options.retry ?? DEFAULT_SLACK_RETRY;
    const retryConfig: RetryOptions = {
      retries: retry.retries,
      factor: 2,
      minTimeout: retry.minTimeoutMs,
      maxTimeout: retry.maxTimeoutMs,
      randomize: true,
    };
    const logger = options.logger ?? silentLogger;
    this.client = new WebClient(options.token, {
      ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
      retryConfig,
      timeout: options.timeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS,
      // Rate limits are retried by the client after Retry-After, within retryConfig.
      rejectRateLimitedCalls: false,
      // Method names only: never let a computed "method" redirect the token to another host.
      allowAbsoluteUrls: false,
      logger: slackLogger(logger),
      logLevel: LogLevel.WARN,
    });
  }

  async post(message: ChatMessage): Promise<{ ts: string }> {
    let result: unknown;
    try {
      result = await this.client.apiCall("chat.postMessage", toPostMessageArgs(message, this.channel));
    } catch (error) {
      throw toChatError(error, this.channel);
    }
    const ts: unknown = result && typeof result === "object" ? Reflect.get(result, "ts") : undefined;
    if (typeof ts !== "string" || ts.length === 0) {
      // Slack said ok but gave no ts: the message may exist, so retrying risks a duplicate.
      throw new ChatError("Slack accepted chat.postMessage but returned no ts", false, {
        details: { channel: this.channel },
      });
    }
    return { ts };
  }

  async update(ts: string, message: ChatMessage): Promise<void> {
    try {
      await this.client.apiCall("chat.update", toUpdateArgs(message, this.channel, ts));
    } catch (error) {
      throw toChatError(error, this.channel, "chat.update");
    }
  }

  async openView(triggerId: string, view: JsonObject): Promise<void> {
    try {
      await this.client.apiCall("views.open", { trigger_id: triggerId, view });
    } catch (error) {
      throw toChatError(error, this.channel, "views.open");
    }
  }

  async groupMembers(groupId: string): Promise<string[]> {
    let result: unknown;
    try {
      result = await this.client.apiCall("usergroups.users.list", { usergroup: groupId });
    } catch (error) {
      throw toChatError(error, this.channel, "usergroups.users.list");
    }
    const users: unknown = result && typeof result === "object" ? Reflect.get(result, "users") : undefined;
    return Array.isArray(users) ? users.filter((u): u is string => typeof u === "string") : [];
  }
}
