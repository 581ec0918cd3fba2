import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An executions service that accepts every execution and runs none: ingest's launch is
 * real (LocalWorkflowLauncher over HTTP), the investigation behind it is not started.
 */
export interface FakeExecutions {
  url: string;
  /** Investigation ids in the order their executions were accepted. */
  accepted: string[];
  close(): Promise<void>;
}

export async function startFakeExecutions(): Promise<FakeExecutions> {
  const accepted: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/executions")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end("{}");
        return;
      }
      let id = "";
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { argument?: string };
        id = (JSON.parse(body.argument ?? "{}") as { investigationId?: string }).investigationId ?? "";
      } catch {
        // Counted with an empty id: the assertion on unique ids then fails loudly.
      }
      accepted.push(id);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          name: `projects/local/locations/local/workflows/investigate/executions/bench-${accepted.length}`,
          state: "ACTIVE",
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accepted,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
