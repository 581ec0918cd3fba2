import type { ApprovalRequest } from "../domain/approval.js";
import type { ToolDeclaration } from "../model/port.js";
import type { ToolContext, ToolOutput } from "./port.js";

/** What the toolbox needs from the registry. */
export interface ToolboxRegistry {
  names(): string[];
  /**
   * Every tool with whether it only reads. Only prompts use it (to name the acting tools); the
   * approval gate itself is the registry's, so a registry without it (read-only doubles) loses
   * nothing but that hint.
   */
  list?(): ReadonlyArray<{ name: string; readOnly: boolean }>;
  /** A dry-run preview of an acting call (the registry's); absent in read-only doubles. */
  preview?(name: string, rawArgs: unknown, ctx: ToolContext): Promise<string | undefined>;
  declarations(): ToolDeclaration[];
  run(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput>;
}

export interface Refusal {
  tool: string;
  reason: string;
  investigationId: string;
}

/**
 * The only way agent code reaches tools. Three gates, all in code: the tool must be
 * registered, allowed by configuration (allow/deny globs), and part of the step's own
 * tool set, each by the exact name (case-sensitive, after NFKC). A refused call is answered with an error the model can read and is counted;
 * it never executes.
 */
export class ToolBox {
  readonly refusals: Refusal[] = [];
  /** Acting calls the registry held for a person's approval instead of running. */
  readonly held: ApprovalRequest[] = [];

  constructor(
    private readonly registry: ToolboxRegistry,
    private readonly allowed: (name: string) => boolean,
  ) {}

  /** Registered and allowed tools, for planners and reflectors. */
  available(): { name: string; description: string }[] {
    return this.registry
      .declarations()
      .filter((d) => this.allowed(d.name))
      .map((d) => ({ name: d.name, description: d.description }));
  }

  names(): string[] {
    return this.available().map((t) => t.name);
  }

  /** The tool's dry-run preview of a call, for an allowed tool that has one. */
  async preview(name: string, args: unknown, ctx: ToolContext): Promise<string | undefined> {
    if (!this.registry.names().includes(name) || !this.allowed(name)) return undefined;
    return this.registry.preview?.(name, args, ctx);
  }

  /** The available tools that act (change something) rather than only read. */
  actingNames(): string[] {
    return (this.registry.list?.() ?? [])
      .filter((t) => !t.readOnly && this.allowed(t.name))
      .map((t) => t.name);
  }

  declarationsFor(stepTools: readonly string[]): ToolDeclaration[] {
    return this.registry.declarations().filter((d) => stepTools.includes(d.name) && this.allowed(d.name));
  }

  async run(
    name: string,
    args: unknown,
    stepTools: readonly string[],
    ctx: ToolContext,
  ): Promise<ToolOutput> {
    // Compared exactly: code point for code point, case included (domain/tool-names.ts).
    const reason = !this.registry.names().includes(name)
      ? `tool "${name}" does not exist`
      : !this.allowed(name)
        ? `tool "${name}" is disabled by configuration`
        : !stepTools.includes(name)
          ? `tool "${name}" is not part of this step (allowed here: ${stepTools.join(", ")})`
          : undefined;
    if (reason) {
      this.refusals.push({ tool: name, reason, investigationId: ctx.investigationId });
      ctx.logger.warn("tool call refused", { tool: name, reason });
      return { ok: false, summary: `refused: ${reason}`, data: null };
    }
    try {
      const output = await this.registry.run(name, args, ctx);
      if (output.approvalRequest) this.held.push(output.approvalRequest);
      return output;
    } catch (error) {
      // A tool that throws fails its call, not the whole step: the model reads the error.
      const message = error instanceof Error ? error.message : String(error);
      ctx.logger.warn("tool call failed", { tool: name, error: message });
      return { ok: false, summary: `error: ${message}`, data: null };
    }
  }
}
