import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One call from the workflow runner to a function, timed between them. */
export interface ProxiedCall {
  fn: string;
  investigationId: string;
  stepId?: string;
  wave?: number;
  /** Epoch milliseconds (sub-ms precision) when the request arrived and the answer left. */
  startMs: number;
  endMs: number;
  status: number;
}

export interface TimingProxy {
  url: string;
  close(): Promise<void>;
}

/** Epoch milliseconds with sub-millisecond precision, comparable across processes' Date. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Sits between the workflow runner and one function server (the local stack's
 * routeForWorkflow hook) and records each call's round trip as the workflow sees it. It
 * forwards bytes unchanged over a keep-alive connection.
 */
export async function startTimingProxy(
  fn: string,
  target: string,
  sink: ProxiedCall[],
): Promise<TimingProxy> {
  const agent = new Agent({ keepAlive: true });
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const startMs = epochMs();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const ref = parseRef(body);
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          agent,
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (c: Buffer) => parts.push(c));
          answer.on("end", () => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(parts));
            sink.push({ fn, ...ref, startMs, endMs: epochMs(), status: answer.statusCode ?? 502 });
          });
        },
      );
      out.on("error", (error) => {
        res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(error) } }));
        sink.push({ fn, ...ref, startMs, endMs: epochMs(), status: 502 });
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseRef(body: Buffer): { investigationId: string; stepId?: string; wave?: number } {
  try {
    const json = JSON.parse(body.toString("utf8")) as {
      investigationId?: unknown;
      stepId?: unknown;
      wave?: unknown;
    };
    return {
      investigationId: typeof json.investigationId === "string" ? json.investigationId : "",
      ...(typeof json.stepId === "string" ? { stepId: json.stepId } : {}),
      ...(typeof json.wave === "number" ? { wave: json.wave } : {}),
    };
  } catch {
    return { investigationId: "" };
  }
}
