import { createServer, type Server } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../../../functions/src/local/free-port.js";

export interface PushRequest {
  path: string;
  body: unknown;
  receivedAt: number;
}

/** A local HTTP endpoint for push subscriptions that records every delivery. */
export interface PushReceiver {
  url: string;
  requests: PushRequest[];
  /** Status answered to deliveries: 2xx acknowledges, anything else makes Pub/Sub retry. */
  status: number;
  waitFor(count: number, timeoutMs: number): Promise<PushRequest[]>;
  close(): Promise<void>;
}

export async function startPushReceiver(): Promise<PushReceiver> {
  const port = await freePort();
  const requests: PushRequest[] = [];
  const receiver: PushReceiver = {
    url: `http://127.0.0.1:${port}`,
    requests,
    status: 204,
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count && Date.now() < deadline) await sleep(25);
      if (requests.length < count)
        throw new Error(`expected ${count} push deliveries, got ${requests.length}`);
      return requests.slice(0, count);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      text += chunk;
    });
    req.on("end", () => {
      requests.push({ path: req.url ?? "", body: JSON.parse(text) as unknown, receivedAt: Date.now() });
      res.writeHead(receiver.status).end();
    });
  });
  // Pub/Sub's pushing connections are kept alive; do not let them hold close() open.
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const close = receiver.close;
  receiver.close = async () => {
    server.closeAllConnections();
    await close();
  };
  return receiver;
}
