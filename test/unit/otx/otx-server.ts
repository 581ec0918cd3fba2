import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface OtxReply {
  status?: number;
  /** A file under test/fixtures/otx, or a body to send as JSON. */
  fixture?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Holds the answer back this long (timeouts). */
  delayMs?: number;
}

export interface OtxRequest {
  path: string;
  apiKey: string | undefined;
}

/**
 * A stand-in for otx.alienvault.com on 127.0.0.1: answers each request path (raw, still
 * percent-encoded) from a table of recorded bodies, records what was asked, and answers
 * 404 with an empty body for anything else — as OTX does for an indicator it has no page for.
 */
export class OtxServer {
  readonly requests: OtxRequest[] = [];
  private readonly routes = new Map<string, OtxReply>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtxServer> {
    const server = createServer();
    const otx = new OtxServer(server);
    server.on("request", (req, res) => {
      const path = req.url ?? "/";
      const key = req.headers["x-otx-api-key"];
      otx.requests.push({ path, apiKey: typeof key === "string" ? key : undefined });
      const reply = otx.routes.get(path) ?? { status: 404, body: "" };
      const send = () => {
        const body =
          reply.fixture !== undefined
            ? readFileSync(new URL(`../../fixtures/otx/${reply.fixture}`, import.meta.url), "utf8")
            : typeof reply.body === "string"
              ? reply.body
              : JSON.stringify(reply.body ?? {});
        res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
        res.end(body);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return otx;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  on(path: string, reply: OtxReply): this {
    this.routes.set(path, reply);
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
