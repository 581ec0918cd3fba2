import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { McpServerConfig } from "../../config/mcp-settings.js";
import { errorMessage, ToolFailedError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import { anyToolNameMatches, lookAlikeNames, patternsImitated } from "../../domain/tool-names.js";
import type { Logger } from "../../platform/logger.js";
import type { SecretSource } from "../../ports/secret-source.js";
import type { AnyTool } from "../../tools/port.js";
import { toToolOutput } from "./answer.js";
import { declaredParameters } from "./schema.js";

export interface OpenedMcpServer {
  name: string;
  tools: AnyTool[];
  /** Server tools that matched the allowlist but could not be offered, with why. */
  skipped: { tool: string; reason: string }[];
  close(): Promise<void>;
}

const SERVER_TOOL = /^[A-Za-z0-9_-]{1,48}$/;
const MAX_DESCRIPTION = 600;
/** Function names Gemini accepts are at most 64 characters (the registry's rule). */
const MAX_QUALIFIED = 64;

/** Credentials go where the config says, read from Secret Manager at connect time. */
async function transportFor(server: McpServerConfig, secrets: SecretSource | undefined): Promise<Transport> {
  const values = await Promise.all(
    server.credentials.map(async (c) => {
      if (!secrets)
        throw new ToolFailedError(
          `mcp.${server.name}`,
          "credentials are configured but no secret source is available",
          false,
        );
      return { c, value: await secrets.read(c.secret) };
    }),
  );
  if (server.transport === "stdio") {
    const env: Record<string, string> = { ...getDefaultEnvironment() };
    for (const { c, value } of values) if (c.env) env[c.env] = value;
    // stderr is piped, not inherited: a server's diagnostics must not interleave with our logs.
    return new StdioClientTransport({ command: server.command, args: server.args, env, stderr: "pipe" });
  }
  const headers: Record<string, string> = {};
  for (const { c, value } of values) if (c.header) headers[c.header] = `${c.prefix}${value}`;
  return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } });
}

/** Connecting failed: the operator reads why in the log, server text included. */
/** A timeout or a dropped connection may pass; an error the server answered will not. */
function transientMcp(error: McpError): boolean {
  return error.code === ErrorCode.RequestTimeout || error.code === ErrorCode.ConnectionClosed;
}

function connectFailure(qualified: string, error: unknown): ToolFailedError {
  if (error instanceof McpError)
    return new ToolFailedError(qualified, error.message, transientMcp(error), error);
  return new ToolFailedError(qualified, errorMessage(error), true, error);
}

/**
 * A call failed. The message becomes part of the tool output's summary, so it is ferret's
 * words only: a JSON-RPC error's message, a transport error's body and a schema problem's
 * path are the server's text, and go to the log instead.
 */
function callFailure(qualified: string, error: unknown, logger: Logger): ToolFailedError {
  logger.warn("MCP tool call failed", { tool: qualified, error: errorMessage(error).slice(0, 1_000) });
  if (error instanceof McpError) {
    // Not retried: an error the server answered (an internal error included: servers send one
    // when a tool handler throws, and it throws again) and the SDK's own refusals (structured
    // content against the output schema).
    const transient = transientMcp(error);
    const name = ErrorCode[error.code] ?? "unknown code";
    return new ToolFailedError(
      qualified,
      `the call ended in MCP error ${error.code} (${name})`,
      transient,
      error,
    );
  }
  if (error instanceof z.core.$ZodError) {
    // The answer broke the protocol's schema (the SDK's check); the same call gets the same answer.
    return new ToolFailedError(
      qualified,
      `the server's answer does not follow the MCP schema (${error.issues.length} problem(s))`,
      false,
      error,
    );
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) {
    // Overload and server faults pass; a refused credential or a missing endpoint does not.
    const transient = error.code === 429 || error.code >= 500;
    return new ToolFailedError(qualified, `the server answered HTTP ${error.code}`, transient, error);
  }
  const kind = error instanceof Error ? error.name : typeof error;
  return new ToolFailedError(qualified, `the call did not complete (${kind})`, true, error);
}

interface ListedTool {
  name: string;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
}

async function listAll(client: Client, timeout: number): Promise<ListedTool[]> {
  const out: ListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const listed = await client.listTools(cursor ? { cursor } : undefined, { timeout });
    out.push(...listed.tools);
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return out;
}

function toTool(server: McpServerConfig, client: Client, listed: ListedTool): AnyTool | string {
  if (!SERVER_TOOL.test(listed.name)) return "its name is not a plain identifier";
  const qualified = `mcp.${server.name}.${listed.name}`;
  // Gemini's limit; left unchecked, the registry would refuse every tool of the server instead.
  if (qualified.length > MAX_QUALIFIED)
    return `its full name ${qualified} is longer than ${MAX_QUALIFIED} characters`;
  const schema = JSON.parse(JSON.stringify(listed.inputSchema)) as JsonObject;
  const { parameters, problems } = declaredParameters(schema);
  if (problems.length > 0)
    return `its input schema cannot be declared to Gemini: ${problems.slice(0, 3).join("; ")}`;
  let input: z.ZodType<JsonObject>;
  try {
    input = z.fromJSONSchema(schema) as unknown as z.ZodType<JsonObject>;
  } catch (error) {
    return `its input schema cannot be validated: ${errorMessage(error)}`;
  }
  const readOnly = anyToolNameMatches(server.readOnlyTools, listed.name);
  // The description is the server's text too: capped and labelled with where it came from.
  const description = `[MCP server ${server.name}${readOnly ? "" : "; acting: each call waits for a person's approval"}] ${(listed.description ?? listed.name).slice(0, MAX_DESCRIPTION)}`;
  return {
    name: qualified,
    description,
    input,
    parameters,
    readOnly,
    async run(args, ctx) {
      try {
        const result = await client.callTool({ name: listed.name, arguments: args }, undefined, {
          timeout: server.timeoutMs,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        return toToolOutput(qualified, server.name, result, server.maxResponseBytes);
      } catch (error) {
        throw callFailure(qualified, error, ctx.logger);
      }
    },
  };
}

/**
 * Connects to one MCP server and wraps the tools its allowlist names as ferret tools named
 * mcp.<server>.<tool>. Tools the server offers beyond the allowlist are never declared.
 */
export async function openMcpServer(
  server: McpServerConfig,
  secrets: SecretSource | undefined,
  logger: Logger,
): Promise<OpenedMcpServer> {
  const client = new Client({ name: "ferret", version: "0.1.0" });
  const transport = await transportFor(server, secrets);
  try {
    await client.connect(transport, { timeout: server.timeoutMs });
    const listed = await listAll(client, server.timeoutMs);
    const tools: AnyTool[] = [];
    const skipped: { tool: string; reason: string }[] = [];
    // Names that look alike (same UTS #39 skeleton, case folded): a person approving one, or
    // a list naming one, cannot be sure which tool it is, so none of them is offered.
    const twins = lookAlikeNames(listed.map((t) => t.name));
    const concernsAllowlist = (name: string) =>
      anyToolNameMatches(server.tools, name) || patternsImitated(server.tools, name).length > 0;
    for (const t of listed) {
      const lookAlikes = twins.get(t.name);
      if (lookAlikes) {
        if (concernsAllowlist(t.name) || lookAlikes.some(concernsAllowlist))
          skipped.push({
            tool: t.name,
            reason: `the server also offers ${lookAlikes.map((n) => JSON.stringify(n)).join(", ")}, which looks like it (same Unicode skeleton, case aside)`,
          });
        continue;
      }
      if (!anyToolNameMatches(server.tools, t.name)) {
        // Allowed is byte-equal; looking like an allowed name is a reason to refuse, and to say so.
        const imitated = patternsImitated(server.tools, t.name);
        if (imitated.length > 0)
          skipped.push({
            tool: t.name,
            reason: `it looks like the allowed ${imitated.map((n) => JSON.stringify(n)).join(", ")} but is not the same name`,
          });
        continue;
      }
      const tool = toTool(server, client, t);
      if (typeof tool === "string") skipped.push({ tool: t.name, reason: tool });
      else tools.push(tool);
    }
    for (const s of skipped)
      logger.warn("MCP tool not offered", { server: server.name, tool: s.tool, reason: s.reason });
    return { name: server.name, tools, skipped, close: () => client.close() };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw connectFailure(`mcp.${server.name}`, error);
  }
}
