import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { OAuth2Client } from "google-auth-library";

/** One request the server saw, decoded for assertions. */
export interface Recorded {
  method: string;
  /** Path below /bigquery/v2/projects/, e.g. "acme-sec/jobs". */
  path: string;
  query: Record<string, string>;
  body: unknown;
  authorization: string | undefined;
}

export interface Reply {
  status?: number;
  body: unknown;
}

export interface Exchange {
  method: "GET" | "POST";
  /** Matched against Recorded.path. */
  path: string | RegExp;
  reply: Reply | ((request: Recorded, history: readonly Recorded[]) => Reply);
  /** Keep answering instead of being used up by the first match. */
  repeat?: boolean;
}

const PREFIX = "/bigquery/v2/projects/";

export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../../fixtures/bigquery/${name}`, import.meta.url), "utf8"));
}

/** An error body from fixtures/bigquery/errors with the HTTP status it carries. */
export function errorReply(name: string): Reply {
  const body = fixture(`errors/${name}`) as { error: { code: number } };
  return { status: body.error.code, body };
}

/**
 * A stand-in for bigquery.googleapis.com on 127.0.0.1: it answers scripted exchanges with
 * recorded response bodies and records every request. A request no exchange matches is
 * answered 418 (not retried by the client) and listed in `unexpected`.
 */
export class ReplayServer {
  readonly requests: Recorded[] = [];
  readonly unexpected: string[] = [];
  private readonly script: Exchange[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<ReplayServer> {
    const server = createServer();
    const replay = new ReplayServer(server);
    server.on("request", (req, res) => {
      void replay.handle(req).then(({ status, body }) => {
        res.writeHead(status, { "content-type": "application/json; charset=UTF-8" });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return replay;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  expect(...exchanges: Exchange[]): this {
    this.script.push(...exchanges);
    return this;
  }

  /** Exchanges scripted but never requested (repeating ones excluded). */
  pending(): string[] {
    return this.script.filter((e) => !e.repeat).map((e) => `${e.method} ${String(e.path)}`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const recorded: Recorded = {
      method: req.method ?? "GET",
      path: url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: text ? (JSON.parse(text) as unknown) : undefined,
      authorization: req.headers.authorization,
    };
    this.requests.push(recorded);
    const index = this.script.findIndex(
      (e) =>
        e.method === recorded.method &&
        (typeof e.path === "string" ? e.path === recorded.path : e.path.test(recorded.path)),
    );
    const exchange = index === -1 ? undefined : this.script[index];
    if (!exchange) {
      this.unexpected.push(`${recorded.method} ${recorded.path}`);
      return { status: 418, body: { error: { code: 418, message: `unscripted ${recorded.path}` } } };
    }
    if (!exchange.repeat) this.script.splice(index, 1);
    const reply =
      typeof exchange.reply === "function" ? exchange.reply(recorded, this.requests) : exchange.reply;
    return { status: reply.status ?? 200, body: echoJobId(recorded, reply.body) };
  }
}

/**
 * Envelope adaptation, not a change to the recordings: BigQuery answers jobs.insert with
 * the jobReference the client chose, and the client library keeps addressing the job by
 * the id it generated (ferret_ + a UUID). The recorded job bodies carry one fixed id, so
 * the replay writes the requested id into the answer's jobReference, as the service does.
 */
function echoJobId(request: Recorded, body: unknown): unknown {
  const asked = (request.body as { jobReference?: { jobId?: unknown } } | undefined)?.jobReference?.jobId;
  if (request.method !== "POST" || !/\/jobs$/.test(request.path) || typeof asked !== "string") return body;
  if (typeof body !== "object" || body === null || !("jobReference" in body)) return body;
  const answer = structuredClone(body) as { jobReference: Record<string, unknown> };
  answer.jobReference = { ...answer.jobReference, jobId: asked };
  return answer;
}

/**
 * Credentials that never leave the process: an OAuth2 client holding a token that does
 * not expire during the test, so neither ADC nor the metadata server is consulted.
 */
export function staticTokenAuth(token = "test-token"): OAuth2Client {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: token, expiry_date: Date.now() + 3_600_000 });
  return client;
}
