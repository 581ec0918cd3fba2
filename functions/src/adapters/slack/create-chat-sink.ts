import { ConfigError } from "../../domain/errors.js";
import type { Logger } from "../../platform/logger.js";
import type { ChatSink } from "../../ports/chat-sink.js";
import { FileChatSink } from "./file-chat-sink.js";
import { SlackChatSink } from "./slack-chat-sink.js";
import { TerminalChatSink, type TextStream } from "./terminal-chat-sink.js";

export interface ChatSinkChoice {
  /** Slack bot token (SLACK_BOT_TOKEN in the deployed notifier). */
  token?: string;
  /** Slack channel id (FERRET_SLACK_CHANNEL / config slack.channel). */
  channel?: string;
  /** Web API base URL override, for a local receiver. */
  slackApiUrl?: string;
  /** JSONL file for the file sink (FERRET_CHAT_FILE in the local stack). */
  file?: string;
  stream?: TextStream;
  logger?: Logger;
}

/**
 * Slack when a token is configured, else a JSONL file when one is named, else the terminal:
 * the same rendered messages go to whichever is chosen.
 */
export function createChatSink(choice: ChatSinkChoice): ChatSink {
  if (choice.token) {
    if (!choice.channel)
      throw new ConfigError("a Slack token is configured but no channel (FERRET_SLACK_CHANNEL)");
    return new SlackChatSink({
      token: choice.token,
      channel: choice.channel,
      ...(choice.slackApiUrl ? { slackApiUrl: choice.slackApiUrl } : {}),
      ...(choice.logger ? { logger: choice.logger } : {}),
    });
  }
  if (choice.file)
    return new FileChatSink({ path: choice.file, ...(choice.channel ? { channel: choice.channel } : {}) });
  return new TerminalChatSink(choice.stream ? { stream: choice.stream } : {});
}
