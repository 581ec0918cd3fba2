import { appendFile } from "node:fs/promises";
import { ChatError } from "../../domain/errors.js";
import type { ChatMessage, ChatSink } from "../../ports/chat-sink.js";
import { toPostMessageArgs, toUpdateArgs } from "./post-args.js";
import { SyntheticTs } from "./synthetic-ts.js";

export interface FileChatSinkOptions {
  path: string;
  /** Recorded as the channel the messages would have gone to. */
  channel?: string;
  now?: () => Date;
}

/**
 * Appends one JSON line per message: the exact chat.postMessage arguments the Slack sink
 * would send, plus the synthetic ts handed back. Useful for demos, CI artifacts and replaying
 * into Slack later.
 */
export class FileChatSink implements ChatSink {
  private readonly path: string;
  private readonly channel: string;
  private readonly ts: SyntheticTs;
  // Appends are chained so concurrent posts never interleave inside a line.
  private tail: Promise<void> = Promise.resolve();

  constructor(options: FileChatSinkOptions) {
    this.path = options.path;
    this.channel = options.channel ?? "local";
    this.ts = new SyntheticTs(options.now);
  }

  async post(message: ChatMessage): Promise<{ ts: string }> {
    const ts = this.ts.next();
    await this.append({ method: "chat.postMessage", args: toPostMessageArgs(message, this.channel), ts });
    return { ts };
  }

  async update(ts: string, message: ChatMessage): Promise<void> {
    await this.append({ method: "chat.update", args: toUpdateArgs(message, this.channel, ts) });
  }

  private async append(record: Record<string, unknown>): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    const write = this.tail.then(() => appendFile(this.path, line, "utf8"));
    this.tail = write.catch(() => {});
    try {
      await write;
    } catch (error) {
      throw new ChatError(`appending to ${this.path} failed`, true, {
        cause: error,
        details: { path: this.path },
      });
    }
  }
}
