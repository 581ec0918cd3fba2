import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An HTTP proxy on 127.0.0.1 in front of one function server. `failWhen` decides, per
 * request body, whether to answer with an injected status instead of forwarding; every
 * request (forwarded or not) is recorded, so tests can assert retries.
 */
export interface FaultProxy {
  url: string;
  requests: { body: unknown; injected: number | undefined; status: number }[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startFaultProxy(
  target: string,
  failWhen: (body: unknown, seen: number) => number | undefined,
): Promise<FaultProxy> {
  const requests: FaultProxy["requests"] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const body: unknown = text ? JSON.parse(text) : undefined;
      const injected = failWhen(body, requests.length);
      if (injected !== undefined) {
        requests.push({ body, injected, status: injected });
        res.writeHead(injected, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            error: { code: "injected", message: "fault injected by the test", retryable: true },
          }),
        );
        return;
      }
      const upstream = await fetch(`${target}${req.url ?? "/"}`, {
        method: req.method ?? "POST",
        headers: {
          "content-type": req.headers["content-type"] ?? "application/json",
          // The caller's ID token passes through, as it would over any network hop (the gate checks it).
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        },
        ...(text ? { body: text } : {}),
      });
      const answer = await upstream.text();
      requests.push({ body, injected: undefined, status: upstream.status });
      res.writeHead(upstream.status, {
        "content-type": upstream.headers.get("content-type") ?? "application/json",
      });
      res.end(answer);
    })().catch((error: unknown) => {
      res.writeHead(502);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
