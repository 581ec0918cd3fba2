import type { McpConfig } from "../../config/mcp-settings.js";
import { errorMessage } from "../../domain/errors.js";
import type { Logger } from "../../platform/logger.js";
import type { SecretSource } from "../../ports/secret-source.js";
import type { AnyTool } from "../../tools/port.js";
import { type OpenedMcpServer, openMcpServer } from "./server.js";

export interface McpTools {
  tools: AnyTool[];
  servers: OpenedMcpServer[];
  close(): Promise<void>;
}

/**
 * Opens every configured MCP server. A server that cannot be reached is logged and left out:
 * its tools are extra reach, and an investigation is worth more without them than not at all.
 */
export async function openMcpTools(
  config: McpConfig,
  secrets: SecretSource | undefined,
  logger: Logger,
): Promise<McpTools> {
  const opened = await Promise.all(
    config.servers.map(async (server) => {
      try {
        const s = await openMcpServer(server, secrets, logger);
        logger.info("MCP server connected", {
          server: server.name,
          tools: s.tools.map((t) => `${t.name}${t.readOnly ? "" : " (acting)"}`),
        });
        return s;
      } catch (error) {
        logger.warn("MCP server unavailable; its tools are left out", {
          server: server.name,
          error: errorMessage(error),
        });
        return undefined;
      }
    }),
  );
  const servers = opened.filter((s): s is OpenedMcpServer => s !== undefined);
  return {
    tools: servers.flatMap((s) => s.tools),
    servers,
    close: async () => {
      await Promise.allSettled(servers.map((s) => s.close()));
    },
  };
}
