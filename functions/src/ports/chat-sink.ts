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
  /** Replaces a posted message in place (chat.update): the thread root is the status board. */
  update(ts: string, message: ChatMessage): Promise<void>;
}

/** What only a live Slack workspace can do for the interactions endpoint. */
export interface ChatInteractions {
  /** Opens a modal; `triggerId` comes from the click and expires after 3 seconds. */
  openView(triggerId: string, view: JsonObject): Promise<void>;
  /** Member user ids of a user group (usergroups.users.list). */
  groupMembers(groupId: string): Promise<string[]>;
}
