import type { JsonObject } from "../../domain/json.js";
import type { ChatMessage } from "../../ports/chat-sink.js";

/**
 * The exact `chat.postMessage` arguments ferret sends, shared by the Slack sink and the file
 * sink so "what would have been posted" is byte-for-byte what is posted.
 *
 * - unfurl_links/unfurl_media off: a URL that slipped through must not make Slack fetch it
 *   (an attacker-controlled preview, or a request that tells the attacker we looked).
 * - parse "none" and link_names off: Slack must not turn names into mentions or links.
 */
export function toPostMessageArgs(message: ChatMessage, channel: string): JsonObject {
  const args: JsonObject = {
    channel,
    text: message.text,
    blocks: message.blocks,
    unfurl_links: false,
    unfurl_media: false,
    parse: "none",
    link_names: false,
  };
  if (message.threadTs) args.thread_ts = message.threadTs;
  return args;
}

/** `chat.update` arguments: the same hardening; a thread_ts is meaningless for an edit. */
export function toUpdateArgs(message: ChatMessage, channel: string, ts: string): JsonObject {
  const {
    thread_ts: _thread,
    unfurl_links: _l,
    unfurl_media: _m,
    ...args
  } = toPostMessageArgs(message, channel);
  return { ...args, ts };
}
