// A local stand-in for the hosts the samples call (example.com, wikipedia.org, ...).
// The samples stay byte-identical: the test's transport rewrites each request URL onto
// this server, and the server recovers the original URL to pick the reply.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fetchTransport, type HttpTransport, HttpTransportError } from "../runner/index.js";

export interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
}

export interface Seen {
  method: string;
  /** The URL as the workflow wrote it, query included. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A queue of replies (the last one repeats), a function of the request, or a refused connection. */
export type Route = Reply[] | ((seen: Seen) => Reply) | "refuse";

/** Routes are keyed "METHOD scheme://host/path" (no query). */
export type Routes = Record<string, Route>;

export class SampleServer {
  readonly seen: Seen[] = [];
  readonly unrouted: string[] = [];
  private routes: Routes = {};
  private server: Server | null = null;
  private base = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        // Path is /<scheme>/<host>/<rest>: see rewrite().
        const [, scheme, host, ...rest] = (req.url ?? "/").split("/");
        const seen: Seen = {
          method: req.method ?? "",
          url: `${scheme}://${host}/${rest.join("/")}`,
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        };
        this.seen.push(seen);
        const reply = this.reply(seen);
        const type = reply.json !== undefined ? "application/json" : "text/plain";
        res.writeHead(reply.status ?? 200, { "Content-Type": type });
        res.end(reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? ""));
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Installs the routes of one scenario and forgets what earlier ones saw. */
  reset(routes: Routes): void {
    this.routes = routes;
    this.seen.length = 0;
    this.unrouted.length = 0;
  }

  /** Envelope adaptation: sends each request to this server instead of the sample's host. */
  readonly transport: HttpTransport = async (request) => {
    const original = new URL(request.url);
    if (this.routes[routeKey(request.method, original)] === "refuse") {
      throw new HttpTransportError("connection-failed", `connection refused by ${original.host}`);
    }
    return fetchTransport({ ...request, url: this.rewrite(original) });
  };

  private rewrite(url: URL): string {
    return `${this.base}/${url.protocol.replace(":", "")}/${url.host}${url.pathname}${url.search}`;
  }

  private reply(seen: Seen): Reply {
    const key = routeKey(seen.method, new URL(seen.url));
    const route = this.routes[key];
    if (route === undefined || route === "refuse") {
      this.unrouted.push(key);
      return { status: 500, text: `no route for ${key}` };
    }
    if (typeof route === "function") return route(seen);
    const next = route.length > 1 ? route.shift() : route[0];
    return next ?? { status: 500, text: "empty route" };
  }
}

function routeKey(method: string, url: URL): string {
  return `${method} ${url.protocol}//${url.host}${url.pathname}`;
}
