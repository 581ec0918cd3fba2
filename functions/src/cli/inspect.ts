import { type IngestDecision, ingestDecision } from "../app/ingest.js";
import type { Config } from "../config/config.js";
import { catalogEntryFor } from "../domain/category-catalog.js";
import { InvalidInputError } from "../domain/errors.js";
import { type Finding, normalizeNotification, parseNotification } from "../domain/finding/finding.js";
import type { FindingItem } from "../domain/finding/finding-file.js";
import {
  type ExcludedOccurrence,
  findingIocOccurrences,
  type IocOccurrence,
  type ResourceOccurrence,
} from "../domain/finding/finding-iocs.js";
import { type FindingSource, findingSource } from "../domain/finding/finding-source.js";
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
  /** Where in the file the finding was (`listFindingsResults[2]`, `line 4`, `the file`). */
  origin: string;
  envelope: Finding["envelope"];
  finding: Finding;
  ingest: IngestDecision;
  /** The detector and the catalog match, or why there is none. */
  source: Omit<FindingSource, "catalog">;
  /** The category's catalog entry as one line, when there is one. */
  catalog?: string;
  /** Every IOC occurrence, in reading order (one value may occur at several paths). */
  iocs: IocOccurrence[];
  /** Private addresses: internal endpoints, never sent to intel. */
  internalEndpoints: { value: string; path: string }[];
  /** IOC-shaped values that are context, each with the rule that says so. */
  excluded: ExcludedOccurrence[];
  resources: ResourceOccurrence[];
  truncated: string[];
  notes: string[];
}

/** A file of findings: each finding's report, in file order. */
export interface InspectFileReport {
  file: string;
  /** "a ListFindings response", "a JSON array", "JSON Lines", "a single document"… */
  container: string;
  findings: InspectReport[];
}

export interface InspectOptions {
  json: boolean;
  config: Config;
  /** The catalog entry to show for a category (ferret's catalog unless a test supplies another). */
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

function inspectItem(file: string, item: FindingItem, options: InspectOptions): InspectReport {
  const finding = normalizeNotification(parseNotification(item.payload));
  const { occurrences, resources, internalEndpoints, excluded } = findingIocOccurrences(finding);
  const { catalog: _entry, ...source } = findingSource(finding);
  const catalog = (options.describeCategory ?? describeCatalogEntry)(finding.category);
  return {
    file,
    origin: item.origin,
    envelope: finding.envelope,
    finding,
    ingest: ingestDecision(finding, options.config.ingest),
    source,
    ...(catalog === undefined ? {} : { catalog }),
    iocs: occurrences,
    internalEndpoints,
    excluded,
    resources,
    truncated: finding.truncated,
    notes: finding.notes ?? [],
  };
}

/** Every finding of a file (notification, ListFindings response, gcloud output, export rows…). */
export function inspectFile(path: string, options: InspectOptions): InspectFileReport {
  const scenario = loadScenario(path);
  return {
    file: scenario.notificationPath,
    container: scenario.findings.container,
    findings: scenario.findings.items.map((item) => inspectItem(scenario.notificationPath, item, options)),
  };
}

/** The report of a file holding one finding (the first, when it holds several). */
export function inspectNotification(path: string, options: InspectOptions): InspectReport {
  const report = inspectFile(path, options);
  const first = report.findings[0];
  if (!first) throw new InvalidInputError(`${path} holds no finding (${report.container} with none in it)`);
  return first;
}

export function printInspectFile(p: Printer, r: InspectFileReport): void {
  if (r.findings.length !== 1)
    p.line(`file: ${clean(r.file)}: ${r.container} with ${r.findings.length} finding(s)`);
  r.findings.forEach((finding, i) => {
    if (r.findings.length > 1)
      p.line(`\n— finding ${i + 1} of ${r.findings.length} (${clean(finding.origin)}) —`);
    printInspectReport(p, finding);
  });
}

export function printInspectReport(p: Printer, r: InspectReport): void {
  const f = r.finding;
  p.line(`file: ${clean(r.file)} (${r.envelope ?? "notification"})`);
  p.line(`finding: ${clean(f.name)}`);
  p.line(`  category: ${clean(f.category)}`);
  p.line(
    `  detector: ${r.source.detector ? `${clean(r.source.detector)} (from ${clean(r.source.detectorFrom)})` : "not named (no parentDisplayName, no catalog entry, no detector's keys in sourceProperties)"}   class: ${clean(f.findingClass)}`,
  );
  p.line(`  state: ${clean(f.state)}   mute: ${clean(f.mute)}   event time: ${clean(f.eventTime)}`);
  p.line(`  severity: ${f.severity} (from ${clean(f.severitySource ?? "finding")})`);
  p.line(
    `  resource: ${clean(f.resource.name) || "(none)"}${f.resource.type ? ` [${clean(f.resource.type)}]` : ""}`,
  );
  if (f.resource.projectDisplayName) p.line(`  project: ${clean(f.resource.projectDisplayName)}`);
  p.line(`catalog: ${clean(r.source.match, 500)}`);
  if (r.catalog !== undefined) p.line(`  ${clean(r.catalog, 1_000)}`);
  p.line(`ingest: ${r.ingest.action} (${clean(r.ingest.reason)})`);
  p.line(
    r.iocs.length === 0 ? "IOCs: none" : `IOCs (${r.iocs.length}, with the JSON path each was read from):`,
  );
  for (const o of r.iocs) p.line(`  ${o.type.padEnd(9)} ${clean(o.value, 200)}  at ${clean(o.path, 200)}`);
  if (r.internalEndpoints.length > 0) p.line("internal endpoints (not IOCs, never sent to intel):");
  for (const e of r.internalEndpoints) p.line(`  ${clean(e.value, 200)}  at ${clean(e.path, 200)}`);
  if (r.excluded.length > 0) p.line("context, not IOCs:");
  for (const e of r.excluded)
    p.line(`  ${e.type.padEnd(9)} ${clean(e.value, 200)}  at ${clean(e.path, 200)}: ${clean(e.reason, 200)}`);
  p.line(r.resources.length === 0 ? "resources touched: none" : "resources touched:");
  for (const res of r.resources) p.line(`  ${clean(res.name, 200)}  at ${clean(res.path, 200)}`);
  const details = Object.keys(f.details ?? {});
  p.line(
    `kept verbatim: ${details.length === 0 ? "nothing beyond the typed fields" : clean(details.join(", "), 2_000)}`,
  );
  p.line(`truncated: ${r.truncated.length === 0 ? "nothing" : clean(r.truncated.join(", "), 2_000)}`);
  for (const note of r.notes) p.line(`note: ${clean(note)}`);
}
