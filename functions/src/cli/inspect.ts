import { type IngestDecision, ingestDecision } from "../app/ingest.js";
import type { Config } from "../config/config.js";
import { catalogEntryFor } from "../domain/category-catalog.js";
import { type Finding, normalizeNotification, parseNotification } from "../domain/finding.js";
import {
  findingIocOccurrences,
  type IocOccurrence,
  type ResourceOccurrence,
} from "../domain/finding-iocs.js";
import type { Printer } from "./progress.js";
import { loadScenario } from "./scenario.js";
import { terminalLine } from "./terminal-text.js";

/**
 * `ferret inspect`: what ferret makes of a notification, without running anything: the
 * normalized finding, what was cut to fit and why, every IOC with the JSON path it came
 * from, the resources an attacker touched, the catalog entry for the category, and the
 * ingest decision with its reason. Nothing is started and nothing is written.
 */
export interface InspectReport {
  file: string;
  envelope: Finding["envelope"];
  finding: Finding;
  ingest: IngestDecision;
  /** The category's catalog entry, when a catalog is wired in (`describeCategory`). */
  catalog?: string;
  /** Every IOC occurrence, in reading order (one value may occur at several paths). */
  iocs: IocOccurrence[];
  resources: ResourceOccurrence[];
  truncated: string[];
  notes: string[];
}

export interface InspectOptions {
  json: boolean;
  config: Config;
  /**
   * Hook for the category catalog: returns the entry to show for a category, or undefined.
   * Left unset until the catalog exists in this tree; the report then says so.
   */
  describeCategory?: (category: string) => string | undefined;
}

/** The catalog entry as one line of ferret's own reference text. */
export function describeCatalogEntry(category: string): string | undefined {
  const entry = catalogEntryFor(category);
  if (!entry) return undefined;
  const mitre = entry.mitre.length > 0 ? ` ATT&CK ${entry.mitre.join(", ")}.` : "";
  return `${entry.category} (${entry.detector}, playbook ${entry.playbook}): ${entry.meaning}${mitre} Source: ${entry.source}`;
}

/** Finding text is attacker-influenced: no control, escape or invisible characters reach the terminal. */
function clean(text: string | undefined, max = 300): string {
  return terminalLine(text ?? "", max);
}

export function inspectNotification(path: string, options: InspectOptions): InspectReport {
  const scenario = loadScenario(path);
  const finding = normalizeNotification(parseNotification(scenario.notification));
  const { occurrences, resources } = findingIocOccurrences(finding);
  const catalog = options.describeCategory?.(finding.category);
  return {
    file: scenario.notificationPath,
    envelope: finding.envelope,
    finding,
    ingest: ingestDecision(finding, options.config.ingest),
    ...(catalog === undefined ? {} : { catalog }),
    iocs: occurrences,
    resources,
    truncated: finding.truncated,
    notes: finding.notes ?? [],
  };
}

export function printInspectReport(p: Printer, r: InspectReport, catalogWired: boolean): void {
  const f = r.finding;
  p.line(`file: ${clean(r.file)} (${r.envelope ?? "notification"})`);
  p.line(`finding: ${clean(f.name)}`);
  p.line(`  category: ${clean(f.category)}`);
  p.line(`  source: ${clean(f.parentDisplayName) || "unknown"}   class: ${clean(f.findingClass)}`);
  p.line(`  state: ${clean(f.state)}   mute: ${clean(f.mute)}   event time: ${clean(f.eventTime)}`);
  p.line(`  severity: ${f.severity} (from ${clean(f.severitySource ?? "finding")})`);
  p.line(
    `  resource: ${clean(f.resource.name) || "(none)"}${f.resource.type ? ` [${clean(f.resource.type)}]` : ""}`,
  );
  if (f.resource.projectDisplayName) p.line(`  project: ${clean(f.resource.projectDisplayName)}`);
  p.line(
    `catalog: ${r.catalog !== undefined ? clean(r.catalog, 1_000) : catalogWired ? "no entry for this category" : "no category catalog in this build"}`,
  );
  p.line(`ingest: ${r.ingest.action} (${clean(r.ingest.reason)})`);
  p.line(
    r.iocs.length === 0 ? "IOCs: none" : `IOCs (${r.iocs.length}, with the JSON path each was read from):`,
  );
  for (const o of r.iocs) p.line(`  ${o.type.padEnd(9)} ${clean(o.value, 200)}  at ${clean(o.path, 200)}`);
  p.line(r.resources.length === 0 ? "resources touched: none" : "resources touched:");
  for (const res of r.resources) p.line(`  ${clean(res.name, 200)}  at ${clean(res.path, 200)}`);
  const details = Object.keys(f.details ?? {});
  p.line(
    `kept verbatim: ${details.length === 0 ? "nothing beyond the typed fields" : clean(details.join(", "), 2_000)}`,
  );
  p.line(`truncated: ${r.truncated.length === 0 ? "nothing" : clean(r.truncated.join(", "), 2_000)}`);
  for (const note of r.notes) p.line(`note: ${clean(note)}`);
}
