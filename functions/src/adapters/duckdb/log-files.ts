import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, relative } from "node:path";
import type { JsonObject } from "../../domain/json.js";
import { type LogTableDef, logTableDef } from "../../sql/log-schema.js";
import { convertLogEntry, LogEntryError } from "./log-entry/convert.js";
import { schemaSpelling } from "./log-entry/spelling.js";

/**
 * Reads a log directory the way users have their logs and decides, file by file, how each
 * one reaches a table:
 *
 * - `<table>.jsonl` with BigQuery-sink rows (`protopayload_auditlog`, …): loaded as is;
 * - raw LogEntry JSON — a JSON array (`gcloud logging read --format=json`), JSON lines (a
 *   Cloud Storage sink writes them as `<log>/YYYY/MM/DD/…_S0.json`, so subdirectories are
 *   read too), one LogEntry, or an `entries.list` response `{entries: […]}` — converted to
 *   sink rows (log-entry/convert.ts) and routed to tables by `logName`;
 * - anything else is refused by name with what is missing, never loaded as NULL columns.
 *
 * A malformed line is skipped and reported with its line number; it never blocks the rest.
 */
export type LogFileFormat = "bigquery-sink" | "logentry" | "mixed";

export interface LogFileReport {
  file: string;
  format: LogFileFormat;
  /** Rows taken, by table. */
  tables: Record<string, number>;
}

export interface LogProblem {
  file: string;
  line?: number;
  message: string;
  /** The whole file was left out (as opposed to one line of it). */
  refused: boolean;
}

export interface LogDirReport {
  files: LogFileReport[];
  problems: LogProblem[];
}

export interface StagedLogs {
  /** Table name → the JSONL file to load it from. */
  tables: Map<string, string>;
  report: LogDirReport;
  /** Removes the converted copies; the loaded tables do not need them. */
  cleanup(): void;
}

const TABLE_STEM = /^[A-Za-z][A-Za-z0-9_]*$/;
/** How deep a Cloud Storage sink's <log>/YYYY/MM/DD/ layout goes, with room to spare. */
const MAX_DEPTH = 8;
const LOG_EXTENSIONS = new Set([".json", ".jsonl", ".ndjson"]);
/** Problems kept per file; the rest are counted in one line. */
const MAX_PROBLEMS_PER_FILE = 5;
/** Columns every sink table has; a table's other log schema columns are its payload. */
const ENVELOPE = new Set(["logName", "resource", "timestamp", "receiveTimestamp", "severity", "insertId"]);

interface TableRows {
  /** Sink-layout files loaded verbatim when nothing else goes into the table. */
  verbatim: string[];
  lines: string[];
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function payloadColumns(def: LogTableDef): string[] {
  return def.fields.map((f) => f.name).filter((n) => !ENVELOPE.has(n));
}

class FileReader {
  readonly tables: Record<string, number> = {};
  readonly problems: LogProblem[] = [];
  private lineProblems = 0;
  converted = 0;
  sinkRows = 0;

  constructor(readonly file: string) {}

  lineProblem(line: number | undefined, message: string): void {
    this.lineProblems += 1;
    if (this.lineProblems <= MAX_PROBLEMS_PER_FILE)
      this.problems.push({
        file: this.file,
        ...(line !== undefined ? { line } : {}),
        message,
        refused: false,
      });
  }

  finish(): LogProblem[] {
    if (this.lineProblems > MAX_PROBLEMS_PER_FILE)
      this.problems.push({
        file: this.file,
        message: `${this.lineProblems - MAX_PROBLEMS_PER_FILE} more rows skipped for the same kinds of reasons`,
        refused: false,
      });
    return this.problems;
  }
}

export function stageLogDir(dir: string, logTables: readonly LogTableDef[]): StagedLogs {
  const byTable = new Map<string, TableRows>();
  const report: LogDirReport = { files: [], problems: [] };
  const tableRows = (table: string) => {
    let rows = byTable.get(table);
    if (!rows) {
      rows = { verbatim: [], lines: [] };
      byTable.set(table, rows);
    }
    return rows;
  };

  for (const path of logFiles(dir, 0)) {
    const name = relative(dir, path);
    const ext = extname(path).toLowerCase();
    const stem = name.slice(0, -ext.length);
    const sinkTable = ext === ".jsonl" && TABLE_STEM.test(stem) ? stem : undefined;
    const reader = new FileReader(name);
    const sinkLines: string[] = [];
    let sinkWithTimestamp = 0;
    let sinkWithPayload = 0;
    const def = sinkTable ? logTableDef(sinkTable, logTables) : undefined;
    const payload = def ? payloadColumns(def) : [];
    // In a file of a table the log schema describes, a row is a sink row unless it carries a raw protoPayload;
    // elsewhere any row with a logName is a LogEntry (a sink row already converted keeps
    // its protopayload_* column and stays as it is).
    const isLogEntry = (row: JsonObject) =>
      "protoPayload" in row ||
      (!def && "logName" in row && !Object.keys(row).some((k) => k.startsWith("protopayload_")));

    const take = (value: unknown, line: number | undefined, text: string | undefined) => {
      if (!isObject(value)) {
        reader.lineProblem(line, "not a JSON object");
        return;
      }
      if (isLogEntry(value)) {
        try {
          const { table, row } = convertLogEntry(value);
          const target = logTableDef(table, logTables);
          tableRows(table).lines.push(JSON.stringify(target ? schemaSpelling(row, target.fields) : row));
          reader.tables[table] = (reader.tables[table] ?? 0) + 1;
          reader.converted += 1;
        } catch (error) {
          if (!(error instanceof LogEntryError)) throw error;
          reader.lineProblem(line, error.message);
        }
        return;
      }
      if (!sinkTable) {
        reader.lineProblem(line, "neither a LogEntry (no logName) nor in a <table>.jsonl file");
        return;
      }
      if ("timestamp" in value) sinkWithTimestamp += 1;
      if (payload.some((column) => column in value)) sinkWithPayload += 1;
      sinkLines.push(text ?? JSON.stringify(value));
      reader.sinkRows += 1;
    };

    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      report.problems.push({
        file: name,
        message: `cannot read: ${(error as Error).message}`,
        refused: true,
      });
      continue;
    }
    // An empty file holds no rows either way; the table it names is created empty.
    if (text.trim().length === 0) continue;
    const whole = ext === ".json" ? parseWhole(text) : undefined;
    if (whole && !whole.ok && !looksLikeJsonLines(text)) {
      report.problems.push({ file: name, message: `not valid JSON: ${whole.error}`, refused: true });
      continue;
    }
    if (whole?.ok) {
      const parsed = whole.value;
      const entries = Array.isArray(parsed)
        ? parsed
        : isObject(parsed) && Array.isArray(parsed.entries)
          ? parsed.entries
          : isObject(parsed) && "logName" in parsed
            ? [parsed]
            : undefined;
      if (!entries) {
        report.problems.push({
          file: name,
          message:
            "not a Cloud Logging export: expected a JSON array of LogEntry (gcloud logging read --format=json), " +
            "an entries.list response {entries: […]} or one LogEntry with a logName",
          refused: true,
        });
        continue;
      }
      entries.forEach((entry, k) => {
        take(entry, k + 1, undefined);
      });
    } else {
      text.split("\n").forEach((line, k) => {
        const trimmed = line.trim();
        if (trimmed.length === 0) return;
        let value: unknown;
        try {
          value = JSON.parse(trimmed);
        } catch (error) {
          reader.lineProblem(k + 1, `not valid JSON: ${(error as Error).message.slice(0, 200)}`);
          return;
        }
        take(value, k + 1, trimmed);
      });
    }

    const problems = reader.finish();
    if (sinkTable && reader.sinkRows > 0) {
      const missing: string[] = [];
      if (sinkWithTimestamp === 0) missing.push("timestamp (every query filters on it)");
      if (def && sinkWithPayload === 0) missing.push(`any of ${payload.join(", ")}`);
      if (missing.length > 0) {
        report.problems.push(...problems, {
          file: name,
          message:
            `${reader.sinkRows} rows laid out like no known export: no row has ${missing.join(" or ")}; ` +
            "its columns would all be NULL. Expected BigQuery-sink rows or raw LogEntry JSON",
          refused: true,
        });
        if (reader.converted > 0) report.files.push(fileReport(name, reader, false));
        continue;
      }
      const rows = tableRows(sinkTable);
      if (problems.length === 0 && reader.converted === 0) rows.verbatim.push(path);
      else rows.lines.push(...sinkLines);
      reader.tables[sinkTable] = (reader.tables[sinkTable] ?? 0) + reader.sinkRows;
    }
    if (reader.converted === 0 && reader.sinkRows === 0) {
      report.problems.push(...problems, {
        file: name,
        message: "no usable rows: not a LogEntry export and not BigQuery-sink rows",
        refused: true,
      });
      continue;
    }
    report.problems.push(...problems);
    report.files.push(fileReport(name, reader, reader.sinkRows > 0));
  }

  let staging: string | undefined;
  const tables = new Map<string, string>();
  for (const [table, rows] of byTable) {
    if (rows.lines.length === 0 && rows.verbatim.length === 1) {
      tables.set(table, rows.verbatim[0]!);
      continue;
    }
    staging ??= mkdtempSync(join(tmpdir(), "ferret-logs-"));
    const lines = [...rows.verbatim.flatMap((file) => readLines(file)), ...rows.lines];
    const file = join(staging, `${table}.jsonl`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    tables.set(table, file);
  }
  return {
    tables,
    report,
    cleanup: () => {
      if (staging) rmSync(staging, { recursive: true, force: true });
    },
  };
}

function logFiles(dir: string, depth: number): string[] {
  if (depth > MAX_DEPTH) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) return logFiles(path, depth + 1);
      return stat.isFile() && LOG_EXTENSIONS.has(extname(name).toLowerCase()) ? [path] : [];
    });
}

function parseWhole(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** A Cloud Storage sink names its JSON-lines files *.json. */
function looksLikeJsonLines(text: string): boolean {
  const first = text.split("\n").find((l) => l.trim().length > 0);
  if (first === undefined) return false;
  try {
    return typeof JSON.parse(first) === "object";
  } catch {
    return false;
  }
}

function readLines(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0);
}

function fileReport(name: string, reader: FileReader, hasSink: boolean): LogFileReport {
  const format: LogFileFormat =
    hasSink && reader.converted > 0 ? "mixed" : reader.converted > 0 ? "logentry" : "bigquery-sink";
  return { file: name, format, tables: reader.tables };
}

/** One line per problem, for logs and the CLI. */
export function describeProblem(problem: LogProblem): string {
  const where = problem.line !== undefined ? `${problem.file}:${problem.line}` : problem.file;
  return `${where}: ${problem.refused ? "refused: " : ""}${problem.message}`;
}
