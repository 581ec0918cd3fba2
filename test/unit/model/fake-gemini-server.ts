import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

export interface FakeReply {
  status?: number;
  /** Serialized as JSON unless `raw` is given. */
  json?: unknown;
  raw?: string;
  contentType?: string;
  /** Hold the answer back, to provoke client timeouts. */
  delayMs?: number;
}

export type FakeHandler = FakeReply | ((request: RecordedRequest) => FakeReply);

/**
 * A local HTTP server that speaks enough of the Gemini REST shape for the adapter tests:
 * POST /v1beta/models/{model}:generateContent and :batchEmbedContents. It records every
 * request so tests can assert the exact JSON the SDK put on the wire, and answers from a
 * queue; an unexpected request gets a 599 so the test fails visibly.
 */
export class FakeGeminiServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeHandler[] = [];
  private server: Server | undefined;

  reply(...handlers: FakeHandler[]): this {
    this.queue.push(...handlers);
    return this;
  }

  get pending(): number {
    return this.queue.length;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const recorded: RecordedRequest = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: req.headers,
          body: text ? JSON.parse(text) : undefined,
        };
        this.requests.push(recorded);
        const handler = this.queue.shift();
        const reply: FakeReply =
          handler === undefined
            ? { status: 599, json: { error: { code: 599, message: `unexpected request ${recorded.path}` } } }
            : typeof handler === "function"
              ? handler(recorded)
              : handler;
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "application/json" });
          res.end(reply.raw ?? JSON.stringify(reply.json ?? {}));
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
        else send();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A generateContent answer in the Developer API's shape. */
export function geminiAnswer(parts: unknown[], extra: Record<string, unknown> = {}): FakeReply {
  return {
    json: {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 30, totalTokenCount: 150 },
      modelVersion: "gemini-2.5-flash",
      responseId: "resp-1",
      ...extra,
    },
  };
}
