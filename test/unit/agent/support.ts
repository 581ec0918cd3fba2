import type { Ioc } from "../../../functions/src/domain/ioc.js";
import type { JsonObject, JsonValue } from "../../../functions/src/domain/json.js";
import type { ToolDeclaration } from "../../../functions/src/model/port.js";
import type { ToolContext, ToolOutput } from "../../../functions/src/tools/port.js";
import type { ToolboxRegistry } from "../../../functions/src/tools/toolbox.js";

/** A pure in-memory tool: a function of its arguments, no I/O. */
export interface PureTool {
  name: string;
  description: string;
  parameters: JsonObject;
  run(args: JsonObject): { summary: string; data: JsonValue; iocs?: Ioc[] };
}

export interface RecordedRun {
  name: string;
  args: unknown;
  investigationId: string;
}

/** A ToolboxRegistry over pure tools that records every run it performs. */
export class PureRegistry implements ToolboxRegistry {
  readonly runs: RecordedRun[] = [];
  constructor(private readonly tools: readonly PureTool[]) {}

  names(): string[] {
    return this.tools.map((t) => t.name);
  }

  declarations(): ToolDeclaration[] {
    return this.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  }

  async run(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const tool = this.tools.find((t) => t.name === name);
    if (!tool) throw new Error(`PureRegistry has no tool ${name}`);
    this.runs.push({ name, args: rawArgs, investigationId: ctx.investigationId });
    const out = tool.run((rawArgs ?? {}) as JsonObject);
    return { ok: true, ...out };
  }

  runsOf(name: string): RecordedRun[] {
    return this.runs.filter((r) => r.name === name);
  }
}

const POOLS: Record<string, string> = { "45.9.148.108": "supportxmr" };

export const lookupIp: PureTool = {
  name: "lookup_ip",
  description: "Looks up an IPv4 address in the in-memory threat list.",
  parameters: { type: "object", properties: { ip: { type: "string" } }, required: ["ip"] },
  run: (args): ReturnType<PureTool["run"]> => {
    const ip = String(args.ip);
    const pool = POOLS[ip];
    return pool
      ? {
          summary: `${ip} is a known ${pool} mining pool`,
          data: { ip, listed: true, pool },
          iocs: [{ type: "ip", value: ip, context: `${pool} mining pool` }],
        }
      : { summary: `${ip} is not listed`, data: { ip, listed: false } };
  },
};

export const countFlows: PureTool = {
  name: "count_flows",
  description: "Counts flows to a destination in a fixed table.",
  parameters: { type: "object", properties: { destination: { type: "string" } }, required: ["destination"] },
  run: (args) => ({
    summary: `412 flows to ${String(args.destination)}`,
    data: { destination: String(args.destination), flows: 412 },
  }),
};

/** Registered and allowed, but never part of the steps under test. */
export const deleteProject: PureTool = {
  name: "delete_project",
  description: "Deletes a project. Must never run from an investigation step.",
  parameters: { type: "object", properties: { project: { type: "string" } } },
  run: () => ({ summary: "deleted", data: { deleted: true } }),
};

export const whois: PureTool = {
  name: "whois",
  description: "Registrant of a domain.",
  parameters: { type: "object", properties: { domain: { type: "string" } } },
  run: (args) => ({ summary: `whois ${String(args.domain)}`, data: null }),
};
