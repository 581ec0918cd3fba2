import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { type AssetServerOptions, createAssetServer } from "./asset-inventory.js";

export interface HttpAssetServer {
  url: string;
  writes: unknown[];
  close(): Promise<void>;
}

/**
 * The asset server over streamable HTTP, stateless (a fresh McpServer per request), refusing
 * any request without the expected bearer token with 401.
 */
export async function startHttpAssetServer(
  token: string,
  options: Omit<AssetServerOptions, "writesFile" | "authorized"> = {},
): Promise<HttpAssetServer> {
  const writes: unknown[] = [];
  const http: Server = createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end("unauthorized");
      return;
    }
    const server = createAssetServer(options);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    let body = "";
    for await (const chunk of req) body += chunk;
    const parsed = body
      ? (JSON.parse(body) as { method?: string; params?: { name?: string; arguments?: unknown } })
      : undefined;
    if (parsed?.method === "tools/call" && parsed.params?.name === "set_asset_label")
      writes.push(parsed.params.arguments);
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    writes,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}
