import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createAssetServer } from "./asset-inventory.js";

// Started by tests as `node --import tsx test/helpers/mcp/asset-inventory-stdio.ts <writes-file>`.
// The token arrives in ASSET_API_TOKEN, the way ferret hands a stdio server its secret.
const writesFile = process.argv[2];
const server = createAssetServer({
  ...(writesFile ? { writesFile } : {}),
  authorized: () => process.env.ASSET_API_TOKEN === "asset-token-for-tests",
});
await server.connect(new StdioServerTransport());
