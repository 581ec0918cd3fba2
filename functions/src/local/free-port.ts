import { createServer } from "node:net";

/**
 * Asks the kernel for an unused TCP port on `host`. The port is released before it is
 * returned, so another process could grab it first; callers that spawn a server on it
 * must treat "address in use" as a reason to pick again.
 */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : undefined;
      server.close(() => (port === undefined ? reject(new Error("no port assigned")) : resolve(port)));
    });
  });
}
