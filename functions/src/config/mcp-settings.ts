import { z } from "zod";

/**
 * MCP tool servers (Model Context Protocol) whose tools ferret offers to its agent next to
 * the built-in ones. Kept apart from config.ts so one server's settings read in one place;
 * docs/decisions/0025 says why each default is what it is.
 */

/** A secret read from Secret Manager when the server is connected, never stored in config. */
export const McpCredentialSchema = z.strictObject({
  /**
   * Secret Manager secret: a short id in the function's project ("edr-token"), or a full
   * resource name (projects/P/secrets/S, optionally /versions/V; default version "latest").
   */
  secret: z
    .string()
    .regex(
      /^(?:[A-Za-z0-9_-]{1,255}|projects\/[^/]+\/secrets\/[A-Za-z0-9_-]{1,255}(?:\/versions\/[A-Za-z0-9_-]+)?)$/,
      "a secret id or projects/P/secrets/S[/versions/V]",
    ),
  /**
   * Where the secret goes: an HTTP header of every request (http servers), or an
   * environment variable of the server's process (stdio servers).
   */
  header: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/)
    .optional(),
  /** Written before the secret in the header, e.g. "Bearer ". */
  prefix: z.string().max(32).default(""),
  env: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]{0,63}$/)
    .optional(),
});
export type McpCredential = z.infer<typeof McpCredentialSchema>;

/** Server names become part of tool names (mcp.<server>.<tool>), so they are short slugs. */
export const McpServerNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,19}$/, "a lowercase slug of at most 20 characters");

const common = {
  name: McpServerNameSchema,
  /**
   * Globs over the server's own tool names; only matching tools are offered. Required: a
   * server that grows a tool does not grow ferret's reach with it.
   */
  tools: z.array(z.string().min(1)).min(1, "name the server's tools ferret may use"),
  /**
   * The server's tools that only read. Every other allowed tool is acting and waits for a
   * person's approval of each call. The server's own readOnlyHint is not trusted.
   */
  readOnlyTools: z.array(z.string().min(1)).default([]),
  /** How long one call (and the connection) may take. */
  timeoutMs: z.number().int().min(100).max(300_000).default(30_000),
  /** Text a tool call may return to the agent; the rest is cut and marked truncated. */
  maxResponseBytes: z.number().int().min(256).max(64_000).default(16_000),
  credentials: z.array(McpCredentialSchema).max(8).default([]),
};

export const McpServerSchema = z.discriminatedUnion("transport", [
  z.strictObject({
    ...common,
    transport: z.literal("stdio"),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
  }),
  z.strictObject({
    ...common,
    transport: z.literal("http"),
    /** The server's streamable HTTP endpoint. */
    url: z.url({ protocol: /^https?$/ }),
  }),
]);
export type McpServerConfig = z.infer<typeof McpServerSchema>;

export const McpConfigSchema = z
  .strictObject({
    servers: z.array(McpServerSchema).max(20).default([]),
  })
  .superRefine((mcp, ctx) => {
    const seen = new Set<string>();
    mcp.servers.forEach((server, i) => {
      if (seen.has(server.name))
        ctx.addIssue({
          code: "custom",
          path: ["servers", i, "name"],
          message: `two MCP servers are named ${server.name}`,
        });
      seen.add(server.name);
      server.credentials.forEach((c, j) => {
        const wanted = server.transport === "http" ? "header" : "env";
        if (c[wanted] === undefined || c[server.transport === "http" ? "env" : "header"] !== undefined)
          ctx.addIssue({
            code: "custom",
            path: ["servers", i, "credentials", j],
            message: `a ${server.transport} server takes its credentials through "${wanted}" only`,
          });
      });
    });
  });
export type McpConfig = z.infer<typeof McpConfigSchema>;
