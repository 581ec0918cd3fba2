import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A proxy in front of one function server that, before forwarding a request, lets the test
 * look at the world (e.g. read Firestore) and records what it saw together with the
 * request and the function's answer, in arrival order.
 */
export interface InspectedCall<T> {
  body: unknown;
  seen: T | undefined;
  status: number;
  answer: unknown;
}

export interface InspectingProxy<T> {
  url: string;
  calls: InspectedCall<T>[];
  close(): Promise<void>;
}

export async function startInspectingProxy<T>(
  target: string,
  inspect: (body: unknown) => Promise<T | undefined>,
): Promise<InspectingProxy<T>> {
  const calls: InspectedCall<T>[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const body: unknown = text ? JSON.parse(text) : undefined;
      const seen = await inspect(body);
      const upstream = await fetch(`${target}${req.url ?? "/"}`, {
        method: req.method ?? "POST",
        headers: {
          "content-type": req.headers["content-type"] ?? "application/json",
          // The caller's ID token passes through, as it would over any network hop (the gate checks it).
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        },
        ...(text ? { body: text } : {}),
      });
      const answerText = await upstream.text();
      let answer: unknown = answerText;
      try {
        answer = JSON.parse(answerText);
      } catch {
        // not JSON: keep the text
      }
      calls.push({ body, seen, status: upstream.status, answer });
      res.writeHead(upstream.status, {
        "content-type": upstream.headers.get("content-type") ?? "application/json",
      });
      res.end(answerText);
    })().catch((error: unknown) => {
      res.writeHead(502);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
