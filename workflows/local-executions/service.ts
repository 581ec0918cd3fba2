import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  type CallbackServer,
  type CallbackServerOptions,
  startCallbackServer,
} from "../runner/callback-server.js";
import { type LoadedWorkflow, loadWorkflow, runWorkflow } from "../runner/index.js";

/**
 * A local stand-in for the Workflows Executions API: it accepts an execution, runs the
 * deployed YAML on the local runner in the background, and reports its state. Only the
 * three calls ferret makes exist (create, get, list); the shapes follow the REST API so
 * the launcher code mirrors production. With `callbacks`, executions get callback endpoints
 * (the runner's callback server, on a port of its own) and can pause on
 * `events.await_callback` until an allowed principal calls back, as in Cloud Workflows.
 */
export type ExecutionState = "ACTIVE" | "SUCCEEDED" | "FAILED";

export interface ExecutionRecord {
  name: string;
  state: ExecutionState;
  argument: string;
  result?: string;
  error?: { payload: string };
  startTime: string;
  endTime?: string;
}

export interface LocalExecutionsOptions {
  yamlPath: string;
  env: Record<string, string>;
  workflowName?: string;
  onLog?: (line: Record<string, unknown>) => void;
  /**
   * Who may call back (workflows/runner/callback-server.ts). Without it a step that waits on a
   * callback fails its execution with the runner's SystemError.
   */
  callbacks?: CallbackServerOptions;
  /** Mints the ID token of `auth: {type: OIDC}` requests (RunOptions.idToken). */
  idToken?: (audience: string) => Promise<string> | string;
}

export class LocalExecutionsService {
  private readonly workflow: LoadedWorkflow;
  private readonly executions = new Map<string, ExecutionRecord>();
  private readonly running = new Set<Promise<void>>();
  private server: Server | undefined;
  private callbackServer: Promise<CallbackServer> | undefined;

  constructor(private readonly options: LocalExecutionsOptions) {
    // Loading validates every construct up front: an unsupported one fails here, at start.
    this.workflow = loadWorkflow(readFileSync(options.yamlPath, "utf8"));
  }

  start(execution: { argument: string }): ExecutionRecord {
    const name = `projects/local/locations/local/workflows/${this.options.workflowName ?? "investigate"}/executions/${randomUUID()}`;
    const record: ExecutionRecord = {
      name,
      state: "ACTIVE",
      argument: execution.argument,
      startTime: new Date().toISOString(),
    };
    this.executions.set(name, record);
    const run = this.execute(record).finally(() => this.running.delete(run));
    this.running.add(run);
    return record;
  }

  get(name: string): ExecutionRecord | undefined {
    return this.executions.get(name);
  }

  list(): ExecutionRecord[] {
    return [...this.executions.values()];
  }

  /** Resolves when every execution started so far has ended. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** The callback endpoints every execution shares, started once; none without `callbacks`. */
  private endpoints(): Promise<CallbackServer> | undefined {
    if (!this.options.callbacks) return undefined;
    this.callbackServer ??= startCallbackServer(this.options.callbacks);
    return this.callbackServer;
  }

  private async execute(record: ExecutionRecord): Promise<void> {
    const log = this.options.onLog ?? (() => {});
    try {
      const callbacks = await this.endpoints();
      const result = await runWorkflow(this.workflow, JSON.parse(record.argument) as unknown, {
        env: this.options.env,
        onLog: (entry) => log({ execution: record.name, ...entry }),
        ...(callbacks ? { callbacks } : {}),
        ...(this.options.idToken ? { idToken: this.options.idToken } : {}),
      });
      record.state = "SUCCEEDED";
      record.result = JSON.stringify(result ?? null);
    } catch (error) {
      record.state = "FAILED";
      const payload =
        error instanceof Error && "payload" in error
          ? (error as { payload: unknown }).payload
          : String(error);
      record.error = { payload: JSON.stringify(payload) };
      log({
        severity: "ERROR",
        message: "workflow execution failed",
        execution: record.name,
        error: record.error.payload,
      });
    } finally {
      record.endTime = new Date().toISOString();
    }
  }

  async listen(port: number, host = "127.0.0.1"): Promise<Server> {
    // Up before the first execution, so a callback server that cannot start fails the service's start.
    await this.endpoints();
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => send(res, 500, { error: { message: String(error) } }));
    });
    this.server = server;
    return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    await (await this.callbackServer)?.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://local");
    if (req.method === "POST" && url.pathname.endsWith("/executions")) {
      const body = JSON.parse((await readBody(req)) || "{}") as { argument?: unknown };
      if (typeof body.argument !== "string")
        return send(res, 400, { error: { message: "argument must be a JSON string" } });
      return send(res, 200, this.start({ argument: body.argument }));
    }
    if (req.method === "GET" && url.pathname.endsWith("/executions"))
      return send(res, 200, { executions: this.list() });
    if (req.method === "GET" && url.pathname.startsWith("/v1/")) {
      const record = this.get(decodeURIComponent(url.pathname.slice("/v1/".length)));
      return record ? send(res, 200, record) : send(res, 404, { error: { message: "no such execution" } });
    }
    if (req.method === "GET" && url.pathname === "/healthz") return send(res, 200, { ok: true });
    return send(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
