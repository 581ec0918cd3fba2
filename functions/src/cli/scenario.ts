import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describeProblem, type LogDirReport, stageLogDir } from "../adapters/duckdb/log-files.js";
import { InvalidInputError } from "../domain/errors.js";
import { type FindingFile, readFindingsText } from "../domain/finding/finding-file.js";
import { LOG_TABLES } from "../sql/log-schema.js";

/**
 * A scenario directory (examples/scenarios/<name>/): notification.json, logs/<table>.jsonl,
 * intel/bundle.json and expected.json. A bare notification file is a scenario with no
 * logs, intel or expectations.
 */
export interface ScenarioInput {
  name: string;
  /** The first finding of the file, in the shape it came in (what one investigation publishes). */
  notification: unknown;
  /** Every finding of the file (domain/finding/finding-file.ts): a notification, a ListFindings response, gcloud output, JSON Lines… */
  findings: FindingFile;
  notificationPath: string;
  logsDir?: string;
  stixBundle?: string;
  expectedPath?: string;
}

export interface ScenarioOptions {
  /** A log directory to use instead of the scenario's logs/ (`ferret investigate --logs DIR`). */
  logsDir?: string;
}

export function loadScenario(path: string, options: ScenarioOptions = {}): ScenarioInput {
  const full = resolve(path);
  if (!existsSync(full)) throw new InvalidInputError(`no such file or directory: ${path}`);
  const isDir = statSync(full).isDirectory();
  const notificationPath = isDir ? join(full, "notification.json") : full;
  if (!existsSync(notificationPath)) throw new InvalidInputError(`${path} has no notification.json`);
  const findings = readFindingsText(readFileSync(notificationPath, "utf8"), notificationPath);
  const notification = findings.items[0]?.payload;
  const optional = (p: string) => (isDir && existsSync(join(full, p)) ? join(full, p) : undefined);
  if (options.logsDir !== undefined) {
    const dir = resolve(options.logsDir);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new InvalidInputError(`--logs ${options.logsDir} is not a directory`);
  }
  const logsDir = options.logsDir !== undefined ? resolve(options.logsDir) : optional("logs");
  const stixBundle = optional("intel/bundle.json");
  const expectedPath = optional("expected.json");
  return {
    name: isDir ? (full.split("/").at(-1) ?? "scenario") : "notification",
    notification,
    findings,
    notificationPath,
    ...(logsDir ? { logsDir } : {}),
    ...(stixBundle ? { stixBundle } : {}),
    ...(expectedPath ? { expectedPath } : {}),
  };
}

/**
 * What the warehouse will make of a log directory, before anything starts: the files it
 * reads (BigQuery-sink rows or raw LogEntry JSON, see adapters/duckdb/log-files.ts), and
 * every file or line it would leave out. A refused file, or a directory with no log file
 * at all, is invalid input: the investigation would otherwise report "no activity".
 */
export function checkLogDir(dir: string): { report: LogDirReport; lines: string[] } {
  const staged = stageLogDir(dir, LOG_TABLES);
  staged.cleanup();
  const { report } = staged;
  const refused = report.problems.filter((p) => p.refused);
  if (refused.length > 0 || report.files.length === 0) {
    const why =
      refused.length > 0
        ? refused.map(describeProblem).join("; ")
        : "no .json, .jsonl or .ndjson file of log entries in it";
    throw new InvalidInputError(`log directory ${dir}: ${why}`);
  }
  const rows = new Map<string, number>();
  for (const file of report.files)
    for (const [table, n] of Object.entries(file.tables)) rows.set(table, (rows.get(table) ?? 0) + n);
  const converted = report.files.filter((f) => f.format !== "bigquery-sink").length;
  return {
    report,
    lines: [
      `logs: ${report.files.length} files (${converted} converted from raw LogEntry JSON) → ` +
        [...rows].map(([table, n]) => `${table} (${n})`).join(", "),
      ...report.problems.map((p) => `logs: skipped ${describeProblem(p)}`),
    ],
  };
}
