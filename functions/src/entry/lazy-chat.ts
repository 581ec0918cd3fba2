import type { ChatSink } from "../ports/chat-sink.js";

/**
 * A chat sink built on the first post, for functions that do not post (the workflow roles,
 * ingest, the memory introspector): their cold start then never loads the Slack SDK. A
 * failed build is not cached: the next post tries again.
 */
export function lazyChatSink(build: () => Promise<ChatSink>): ChatSink {
  let building: Promise<ChatSink> | undefined;
  const sink = (): Promise<ChatSink> =>
    (building ??= build().catch((error: unknown) => {
      building = undefined;
      throw error;
    }));
  return {
    post: async (message) => (await sink()).post(message),
    update: async (ts, message) => (await sink()).update(ts, message),
  };
}
