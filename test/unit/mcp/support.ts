import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type McpServerConfig, McpServerSchema } from "../../../functions/src/config/mcp-settings.js";
import type { SecretSource } from "../../../functions/src/ports/secret-source.js";

export const STDIO_TOKEN = "asset-token-for-tests";

/** Secrets by name, recording which were read (Secret Manager's stand-in). */
export class MapSecrets implements SecretSource {
  readonly reads: string[] = [];
  constructor(private readonly values: Record<string, string>) {}
  async read(name: string): Promise<string> {
    this.reads.push(name);
    const value = this.values[name];
    if (value === undefined) throw new Error(`no secret ${name}`);
    return value;
  }
}

/** A stdio asset server's config, with the file its acting calls are written to. */
export function stdioAssets(overrides: Record<string, unknown> = {}): {
  config: McpServerConfig;
  writes: () => unknown[];
} {
  const dir = mkdtempSync(join(tmpdir(), "ferret-mcp-"));
  const writesFile = join(dir, "writes.jsonl");
  writeFileSync(writesFile, "");
  const config = McpServerSchema.parse({
    name: "assets",
    transport: "stdio",
    command: process.execPath,
    args: ["--import", "tsx", "test/helpers/mcp/asset-inventory-stdio.ts", writesFile],
    tools: ["get_asset", "set_asset_label"],
    readOnlyTools: ["get_asset"],
    timeoutMs: 60_000,
    credentials: [{ secret: "asset-api-token", env: "ASSET_API_TOKEN" }],
    ...overrides,
  });
  const writes = () =>
    readFileSync(writesFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as unknown);
  return { config, writes };
}
