import type { Span } from "@opentelemetry/api";
import { z } from "zod";
import { approvalFor, approvalRequest } from "../domain/approval.js";
import {
  ApprovalRequiredError,
  ConfigError,
  errorMessage,
  FerretError,
  ToolInputError,
  UnknownToolError,
} from "../domain/errors.js";
import type { JsonObject, JsonValue } from "../domain/json.js";
import type { ToolDeclaration } from "../model/port.js";
import { inSpan } from "../platform/tracing.js";
import type { AnyTool, ToolContext, ToolOutput } from "./port.js";

/**
 * The tools an investigation may call, and the one place their calls are validated and
 * contained: arguments are checked against the tool's zod schema, and anything a tool
 * throws becomes an `ok: false` output that says whether retrying could help, so a tool
 * error never crashes a step.
 */
export interface ToolRegistry {
  list(): AnyTool[];
  names(): string[];
  /** Throws UnknownToolError for a name that is not registered. */
  get(name: string): AnyTool;
  declarations(): ToolDeclaration[];
  /**
   * A tool's dry-run preview of a call, run by whoever holds the read permissions it needs;
   * undefined when the tool has none or the arguments do not validate. Never acts.
   */
  preview(name: string, rawArgs: unknown, ctx: ToolContext): Promise<string | undefined>;
  run(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput>;
}

/**
 * Function names Gemini accepts: a letter first, then letters, digits, underscores, dots and
 * dashes; at most 64. Dots namespace tools from MCP servers (mcp.<server>.<tool>).
 */
const TOOL_NAME = /^[a-z][a-zA-Z0-9_.-]{0,63}$/;

/**
 * JSON Schema keywords a Gemini function declaration understands (its OpenAPI-style
 * Schema). Anything else — $ref, anyOf, additionalProperties, type arrays — is refused
 * when the registry is built, so a tool that would be silently mangled fails fast.
 */
const GEMINI_KEYWORDS = new Set([
  "type",
  "description",
  "properties",
  "required",
  "items",
  "enum",
  "format",
  "minimum",
  "maximum",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "default",
  "nullable",
  "title",
]);
const GEMINI_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean"]);

export function geminiSchemaProblems(schema: JsonValue, path = "$"): string[] {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema))
    return [`${path}: not a schema object`];
  const problems: string[] = [];
  for (const key of Object.keys(schema)) {
    if (!GEMINI_KEYWORDS.has(key)) problems.push(`${path}: unsupported keyword "${key}"`);
  }
  const type = schema.type;
  if (typeof type !== "string" || !GEMINI_TYPES.has(type))
    problems.push(`${path}: type must be one of ${[...GEMINI_TYPES].join("/")}`);
  if (type === "object") {
    const properties = schema.properties;
    if (
      properties !== undefined &&
      (properties === null || typeof properties !== "object" || Array.isArray(properties))
    ) {
      problems.push(`${path}.properties: not an object`);
    } else if (properties) {
      for (const [name, sub] of Object.entries(properties))
        problems.push(...geminiSchemaProblems(sub, `${path}.${name}`));
    }
  }
  if (type === "array") {
    if (schema.items === undefined) problems.push(`${path}: array without items`);
    else problems.push(...geminiSchemaProblems(schema.items, `${path}[]`));
  }
  if (
    schema.enum !== undefined &&
    (!Array.isArray(schema.enum) || schema.enum.some((v) => typeof v !== "string"))
  ) {
    problems.push(`${path}: enum values must be strings`);
  }
  return problems;
}

/** The tool's argument schema as inline JSON Schema (no $ref), describing what callers send. */
export function toolParameters(tool: AnyTool): JsonObject {
  if (tool.parameters) return structuredClone(tool.parameters);
  const schema = z.toJSONSchema(tool.input, {
    io: "input",
    reused: "inline",
    unrepresentable: "throw",
  }) as Record<string, unknown>;
  const { $schema: _dialect, ...rest } = schema;
  return JSON.parse(JSON.stringify(rest)) as JsonObject;
}

function errorOutput(tool: string, error: unknown, issues?: JsonValue): ToolOutput {
  const known = error instanceof FerretError;
  const retryable = known ? error.retryable : false;
  const code = known ? error.code : "tool_failed";
  const message = errorMessage(error);
  return {
    ok: false,
    summary: `${tool} failed: ${message} (${retryable ? "retrying later may help" : "retrying the same call will not help"})`,
    data: { error: { code, message, retryable, ...(issues !== undefined ? { issues } : {}) } },
  };
}

/** Bad arguments: the model gets each zod issue with its path, to fix the call. */
function inputErrorOutput(tool: string, error: z.ZodError): ToolOutput {
  const issues = error.issues
    .slice(0, 10)
    .map((i) => ({ path: i.path.map(String).join(".") || "(arguments)", message: i.message }));
  return errorOutput(
    tool,
    new ToolInputError(tool, issues.map((i) => `${i.path}: ${i.message}`).join("; ")),
    issues,
  );
}

/**
 * The approval gate, here because every path to a tool passes through the registry: an
 * acting call runs only under an approved decision for exactly this investigation, tool and
 * (validated) arguments. Without one the call is held: the answer carries the request a
 * person will be shown, with the tool's dry-run preview when it has one, and nothing acts.
 */
/** The tool's preview of a call, a failed one said as such; undefined when it offers none. */
async function dryRun(tool: AnyTool, args: JsonObject, ctx: ToolContext): Promise<string | undefined> {
  try {
    return tool.preview ? await tool.preview(args, ctx) : undefined;
  } catch (error) {
    return `dry run failed: ${errorMessage(error)}`;
  }
}

async function runActing(tool: AnyTool, args: JsonObject, ctx: ToolContext): Promise<ToolOutput> {
  tool.checkTarget?.(args, ctx);
  const approval = approvalFor(ctx.approvals, ctx.investigationId, tool.name, args);
  if (approval) return { ...(await tool.run(args, ctx)), approvedBy: approval };
  const preview = await dryRun(tool, args, ctx);
  const request = approvalRequest(ctx.investigationId, tool.name, args, {
    ...(ctx.stepId ? { stepId: ctx.stepId } : {}),
    ...(preview ? { preview } : {}),
  });
  const held = errorOutput(tool.name, new ApprovalRequiredError(tool.name));
  return {
    ...held,
    summary: `${tool.name} was not run: it acts on the environment and waits for a person's approval of this exact call`,
    data: { ...(held.data as JsonObject), approvalRequest: request },
    approvalRequest: request,
  };
}

export function createToolRegistry(tools: readonly AnyTool[]): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  const declarations: ToolDeclaration[] = [];
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name))
      throw new ConfigError(`tool name "${tool.name}" is not a valid function name`);
    if (byName.has(tool.name)) throw new ConfigError(`two tools are named ${tool.name}`);
    const parameters = toolParameters(tool);
    const problems = geminiSchemaProblems(parameters);
    if (problems.length > 0)
      throw new ConfigError(`tool ${tool.name} has a schema Gemini cannot take: ${problems.join("; ")}`);
    byName.set(tool.name, tool);
    declarations.push({ name: tool.name, description: tool.description, parameters });
  }

  // The exact name: code point for code point, case included (domain/tool-names.ts).
  const get = (name: string): AnyTool => {
    const tool = byName.get(name);
    if (!tool) throw new UnknownToolError(name, [...byName.keys()]);
    return tool;
  };

  return {
    list: () => [...byName.values()],
    names: () => [...byName.keys()],
    get,
    declarations: () => declarations.map((d) => ({ ...d })),
    async preview(name, rawArgs, ctx) {
      const tool = get(name);
      const parsed = tool.input.safeParse(rawArgs ?? {});
      if (!parsed.success || !tool.preview) return undefined;
      try {
        tool.checkTarget?.(parsed.data, ctx);
      } catch (error) {
        return `dry run failed: ${errorMessage(error)}`;
      }
      return dryRun(tool, parsed.data, ctx);
    },
    run: (name, rawArgs, ctx) =>
      inSpan(
        `execute_tool ${name}`,
        { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name },
        async (span: Span) => {
          const output = await runTool(name, rawArgs, ctx);
          span.setAttribute("ferret.tool_ok", output.ok);
          return output;
        },
      ),
  };

  async function runTool(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const started = Date.now();
    let output: ToolOutput;
    try {
      const tool = get(name);
      const parsed = tool.input.safeParse(rawArgs ?? {});
      output = !parsed.success
        ? inputErrorOutput(name, parsed.error)
        : tool.readOnly
          ? await tool.run(parsed.data, ctx)
          : await runActing(tool, parsed.data, ctx);
    } catch (error) {
      output = errorOutput(name, error);
    }
    ctx.logger.info("tool call", {
      tool: name,
      ok: output.ok,
      durationMs: Date.now() - started,
      ...(output.approvalRequest ? { heldForApproval: true } : {}),
      ...(output.approvedBy ? { approvedBy: output.approvedBy.decidedBy } : {}),
    });
    return output;
  }
}
