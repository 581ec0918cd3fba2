import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type DuckDbLogWarehouse,
  openDuckDbWarehouse,
} from "../../../../functions/src/adapters/duckdb/warehouse.js";
import { StixThreatIntel } from "../../../../functions/src/adapters/stix/threat-intel.js";
import {
  type Finding,
  normalizeNotification,
  parseNotification,
} from "../../../../functions/src/domain/finding/finding.js";
import type { JsonObject } from "../../../../functions/src/domain/json.js";
import type { ToolDeclaration } from "../../../../functions/src/model/port.js";
import type { IntelReport, ThreatIntel } from "../../../../functions/src/ports/threat-intel.js";
import { loadRunbooks } from "../../../../functions/src/sql/runbooks.js";
import { createLogQueryTool } from "../../../../functions/src/tools/log-query.js";
import { createLogTablesTool } from "../../../../functions/src/tools/log-tables.js";
import type { ToolContext, ToolOutput } from "../../../../functions/src/tools/port.js";
import { createToolRegistry, type ToolRegistry } from "../../../../functions/src/tools/registry.js";
import { createThreatIntelLookupTool } from "../../../../functions/src/tools/threat-intel-lookup.js";
import type { ToolboxRegistry } from "../../../../functions/src/tools/toolbox.js";
import { type Tables, writeTables } from "./logs.js";

export type IntelTable = Record<string, Omit<IntelReport, "indicator">>;

/** Threat intel from a table; anything not listed is "unknown", as a real feed answers. */
export class TableIntel implements ThreatIntel {
  readonly name = "test-feed";
  constructor(private readonly table: IntelTable) {}
  async lookup(indicator: IntelReport["indicator"]): Promise<IntelReport> {
    const known = this.table[indicator.value];
    return known
      ? { indicator, ...known }
      : { indicator, verdict: "unknown", sources: [], tags: [], related: [] };
  }
}

export const malicious = (tags: string[], related: string[] = []): Omit<IntelReport, "indicator"> => ({
  verdict: "malicious",
  sources: ["test-feed"],
  tags,
  related,
});

export const benign = (tags: string[] = []): Omit<IntelReport, "indicator"> => ({
  verdict: "benign",
  sources: ["test-feed"],
  tags,
  related: [],
});

export interface RecordedCall {
  name: string;
  args: JsonObject;
  ok: boolean;
}

/**
 * The project's real tools (log_query with runbooks and the SQL guard over the DuckDB
 * warehouse, log_tables, threat_intel_lookup) behind a registry that records each call.
 */
export class RealTools implements ToolboxRegistry {
  readonly calls: RecordedCall[] = [];
  private constructor(
    private readonly registry: ToolRegistry,
    private readonly warehouse: DuckDbLogWarehouse,
    private readonly cleanup: () => void,
    private readonly only: readonly string[] | undefined,
  ) {}

  static async fromDir(
    dir: string,
    intel: ThreatIntel,
    options: { only?: string[]; cleanup?: () => void } = {},
  ): Promise<RealTools> {
    const warehouse = await openDuckDbWarehouse({ dir, timeoutMs: 10_000 });
    const registry = createToolRegistry([
      createLogQueryTool({ warehouse, runbooks: loadRunbooks() }),
      createLogTablesTool(warehouse),
      createThreatIntelLookupTool(intel),
    ]);
    return new RealTools(registry, warehouse, options.cleanup ?? (() => {}), options.only);
  }

  static async create(
    tables: Tables,
    intel: IntelTable = {},
    options: { only?: string[] } = {},
  ): Promise<RealTools> {
    const files = writeTables(tables);
    return RealTools.fromDir(files.dir, new TableIntel(intel), { ...options, cleanup: files.cleanup });
  }

  async close(): Promise<void> {
    await this.warehouse.close();
    this.cleanup();
  }

  names(): string[] {
    return this.registry.names().filter((n) => !this.only || this.only.includes(n));
  }

  declarations(): ToolDeclaration[] {
    return this.registry.declarations().filter((d) => !this.only || this.only.includes(d.name));
  }

  async run(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const output = await this.registry.run(name, rawArgs, ctx);
    this.calls.push({ name, args: (rawArgs ?? {}) as JsonObject, ok: output.ok });
    return output;
  }

  callsOf(name: string): RecordedCall[] {
    return this.calls.filter((c) => c.name === name);
  }
}

/**
 * A bundled scenario as the offline tests run it: its finding, and the real tools over its
 * logs and its STIX bundle (intel judged as of the finding's time). Close the tools after use.
 */
export async function openScenario(dir: string): Promise<{ finding: Finding; tools: RealTools }> {
  const finding = normalizeNotification(
    parseNotification(JSON.parse(readFileSync(join(dir, "notification.json"), "utf8"))),
  );
  const intel = StixThreatIntel.fromFile(join(dir, "intel/bundle.json"), {
    now: () => new Date(finding.eventTime),
  });
  return { finding, tools: await RealTools.fromDir(join(dir, "logs"), intel) };
}
