import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { InstanceGate } from "./instance-gate.js";

/**
 * The front of one local function, where Cloud Run's own front end would be: an HTTP proxy on
 * the function's public port that first asks `authorize` (Cloud Run's IAM check: 401 without a
 * valid token, 403 for a caller not allowed), then takes a slot from the function's
 * InstanceGate (queue, then 429), then forwards the request to the functions-framework server
 * behind it. Local stack only; nothing in production passes through it.
 */
export interface Refusal {
  status: 401 | 403;
  reason: string;
}

export interface GateProxyOptions {
  /** Function name, for messages. */
  name: string;
  /** Where the functions-framework server listens, e.g. http://127.0.0.1:40123. */
  target: string;
  gate: InstanceGate;
  /** Port to listen on (0: any free one). */
  port: number;
  /** Cloud Run's invoker check; undefined lets the request through. */
  authorize?: (req: IncomingMessage) => Promise<Refusal | undefined> | Refusal | undefined;
}

export interface GateProxy {
  url: string;
  close(): Promise<void>;
}

function refuse(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

export async function startGateProxy(options: GateProxyOptions): Promise<GateProxy> {
  const target = new URL(options.target);
  const server = createServer((req, res) => {
    void serve(req, res);
  });
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refusal = await options.authorize?.(req);
    if (refusal) {
      // Cloud Run's refusals carry no body the workflow parses; the reason helps whoever reads the log.
      refuse(res, refusal.status, `${options.name}: ${refusal.reason}\n`);
      req.resume();
      return;
    }
    await options.gate.acquire().then((release) => {
      if (!release) {
        refuse(
          res,
          429,
          `${options.name}: no instance became free within ${options.gate.queueMs / 1_000} s at the instance cap (${options.gate.slots} requests at once)\n`,
        );
        req.resume();
        return;
      }
      forward(req, res, target, {}, release);
    });
  };
  return listenLocal(server, options.port);
}

/** Listens on 127.0.0.1:`port` (0: any free port). */
export async function listenLocal(server: Server, port: number): Promise<GateProxy> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Sends `req` on to `target` (same method, path and headers, plus `extra`) and streams the
 * answer back; `done` runs once when the answer has ended or the exchange broke. When the
 * target's process is gone (a crash, a restart in a fault test) the caller sees its connection
 * drop, as it would without anything in between.
 */
export function forward(
  req: IncomingMessage,
  res: ServerResponse,
  target: URL,
  extra: Record<string, string>,
  done: () => void = () => {},
): void {
  const upstream = request(
    {
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, ...extra },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.once("end", done);
      answer.once("close", done);
    },
  );
  upstream.once("error", () => {
    done();
    res.socket?.destroy();
  });
  req.pipe(upstream);
}
