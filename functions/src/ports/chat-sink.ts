import type { JsonObject } from "../domain/json.js";

export interface ChatMessage {
  /** Plain-text fallback (notifications, screen readers). */
  text: string;
  /** Slack Block Kit blocks. */
  blocks: JsonObject[];
  /** Reply in this thread when set. */
  threadTs?: string;
}

/** Where conclusions are posted: Slack in production, the terminal or a file locally. */
export interface ChatSink {
  post(message: ChatMessage): Promise<{ ts: string }>;
}
