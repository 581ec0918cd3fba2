import { ChatError } from "../../domain/errors.js";
import type { ChatMessage, ChatSink } from "../../ports/chat-sink.js";
import { blocksToPlain } from "./render-plain.js";
import { SyntheticTs } from "./synthetic-ts.js";

export interface TextStream {
  write(chunk: string): unknown;
}

export interface TerminalChatSinkOptions {
  stream?: TextStream;
  now?: () => Date;
}

const REPLY_INDENT = "    │ ";

/**
 * Shows what would be posted, as plain text: thread roots flush left, replies indented
 * under them, so a local run reads like the Slack thread.
 */
export class TerminalChatSink implements ChatSink {
  private readonly stream: TextStream;
  private readonly ts: SyntheticTs;

  constructor(options: TerminalChatSinkOptions = {}) {
    this.stream = options.stream ?? process.stdout;
    this.ts = new SyntheticTs(options.now);
  }

  async post(message: ChatMessage): Promise<{ ts: string }> {
    const ts = this.ts.next();
    const reply = message.threadTs !== undefined;
    const lines = blocksToPlain(message.blocks);
    const body = lines.length > 0 ? lines : [message.text];
    const head = reply
      ? `    ↳ reply in thread ${message.threadTs} (ts ${ts})`
      : `● ferret · new thread (ts ${ts})`;
    const indent = reply ? REPLY_INDENT : "  ";
    const text = `${[head, ...body.map((l) => `${indent}${l}`.trimEnd())].join("\n")}\n\n`;
    try {
      this.stream.write(text);
    } catch (error) {
      throw new ChatError("writing to the terminal failed", false, { cause: error });
    }
    return { ts };
  }

  async update(ts: string, message: ChatMessage): Promise<void> {
    const lines = blocksToPlain(message.blocks);
    const body = (lines.length > 0 ? lines : [message.text]).map((l) => `  ${l}`.trimEnd());
    try {
      this.stream.write(`${[`● ferret · thread root ${ts} updated`, ...body].join("\n")}\n\n`);
    } catch (error) {
      throw new ChatError("writing to the terminal failed", false, { cause: error });
    }
  }
}
