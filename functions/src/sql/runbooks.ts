import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ConfigError, InvalidInputError, NotFoundError } from "../domain/errors.js";
import type { QueryRequest, SqlParam } from "../ports/log-warehouse.js";
import { lexSql } from "./lexer.js";

/**
 * Runbooks: parameterized BigQuery SQL files for common investigation questions, with a
 * header the agent reads to choose one:
 *
 *   -- name: vpc_flows_from_instance
 *   -- description: Where one VM connected to …
 *   -- tables: compute_googleapis_com_vpc_flows
 *   -- param: instance STRING VM name, e.g. etl-worker-1
 *   -- param: start TIMESTAMP window start, ISO 8601
 *
 * Time windows are always parameters, anchored by the caller on the finding's eventTime.
 */
export const RunbookParamTypeSchema = z.enum(["STRING", "INT64", "BOOL", "TIMESTAMP"]);
export type RunbookParamType = z.infer<typeof RunbookParamTypeSchema>;

export const RunbookParamSchema = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  type: RunbookParamTypeSchema,
  description: z.string().min(1).max(300),
});
export type RunbookParam = z.infer<typeof RunbookParamSchema>;

export const RunbookSchema = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  description: z.string().min(20).max(600),
  /**
   * What the answer's rows are about: the asked values' own log rows ("rows", the default), or
   * the history of the actors those rows name ("actors": every call of each principal who touched
   * the value, whatever it touched). Exact identity holds for both (decision 0046): the first
   * never returns a longer name's rows, the second never a longer name's actors.
   */
  subject: z.enum(["rows", "actors"]).default("rows"),
  tables: z.array(z.string().regex(/^[A-Za-z0-9_]+$/)).min(1),
  params: z.array(RunbookParamSchema),
  sql: z.string().min(1),
});
export type Runbook = z.infer<typeof RunbookSchema>;

const HEADER_LINE = /^--\s*(name|description|subject|tables|param):\s*(.*)$/;
const PARAM_LINE = /^([a-z][a-z0-9_]*)\s+([A-Z0-9]+)\s+(.+)$/;
const MAX_STRING_PARAM = 512;

/** Parses one runbook file; the header must declare exactly the @params the SQL uses. */
export function parseRunbook(text: string, source = "runbook"): Runbook {
  const lines = text.split(/\r?\n/);
  const header: Record<string, string> = {};
  const params: Array<Record<string, string>> = [];
  let bodyStart = 0;
  for (const [index, line] of lines.entries()) {
    const match = HEADER_LINE.exec(line.trim());
    if (!match) {
      bodyStart = index;
      break;
    }
    const key = match[1]!;
    const value = match[2] ?? "";
    if (key === "param") {
      const p = PARAM_LINE.exec(value.trim());
      if (!p)
        throw new ConfigError(`${source}: malformed param line "${value}" (want: name TYPE description)`);
      params.push({ name: p[1]!, type: p[2]!, description: p[3]! });
    } else {
      header[key] = value.trim();
    }
  }
  const sql = lines.slice(bodyStart).join("\n").trim();
  const parsed = RunbookSchema.safeParse({
    name: header.name,
    description: header.description,
    ...(header.subject !== undefined ? { subject: header.subject } : {}),
    tables: (header.tables ?? "")
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean),
    params,
    sql,
  });
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => `${i.path.join(".") || "(header)"}: ${i.message}`)
      .join("; ");
    throw new ConfigError(`${source}: invalid runbook header: ${issues}`);
  }
  const used = new Set(
    lexSql(sql)
      .tokens.filter((t) => t.kind === "param")
      .map((t) => t.value),
  );
  const declared = new Set(parsed.data.params.map((p) => p.name));
  const undeclared = [...used].filter((p) => !declared.has(p));
  const unused = [...declared].filter((p) => !used.has(p));
  if (undeclared.length > 0 || unused.length > 0) {
    throw new ConfigError(
      `${source}: params do not match the SQL (undeclared: ${undeclared.join(", ") || "none"}; unused: ${unused.join(", ") || "none"})`,
    );
  }
  return parsed.data;
}

function coerce(param: RunbookParam, raw: unknown): SqlParam {
  const fail = (why: string): never => {
    throw new InvalidInputError(`runbook parameter ${param.name} (${param.type}): ${why}`);
  };
  switch (param.type) {
    case "STRING": {
      if (typeof raw !== "string" && typeof raw !== "number") return fail("expected a string");
      const value = String(raw).trim();
      if (value.length === 0 || value.length > MAX_STRING_PARAM)
        return fail(`expected 1 to ${MAX_STRING_PARAM} characters`);
      return value;
    }
    case "INT64": {
      const value = typeof raw === "string" && /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
      if (typeof value !== "number" || !Number.isSafeInteger(value)) return fail("expected an integer");
      return value;
    }
    case "BOOL": {
      if (typeof raw === "boolean") return raw;
      if (raw === "true" || raw === "false") return raw === "true";
      return fail("expected true or false");
    }
    case "TIMESTAMP": {
      const parsed = z.iso.datetime({ offset: true }).safeParse(typeof raw === "string" ? raw.trim() : raw);
      if (!parsed.success) return fail("expected an ISO 8601 timestamp such as 2025-06-11T02:00:00Z");
      return new Date(parsed.data).toISOString();
    }
  }
}

/**
 * Validates raw parameter values against the runbook header and returns the query to run.
 * Unknown and missing parameters are refused; a window whose end precedes its start too.
 */
export function renderRunbook(
  runbook: Runbook,
  rawParams: Readonly<Record<string, unknown>>,
  paging: Pick<QueryRequest, "pageSize" | "pageToken"> = {},
): QueryRequest {
  const known = new Set(runbook.params.map((p) => p.name));
  const unknown = Object.keys(rawParams).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    throw new InvalidInputError(
      `runbook ${runbook.name} has no parameter ${unknown.join(", ")} (it takes ${runbook.params.map((p) => p.name).join(", ")})`,
    );
  }
  const params: Record<string, SqlParam> = {};
  for (const param of runbook.params) {
    const raw = rawParams[param.name];
    if (raw === undefined || raw === null || raw === "") {
      throw new InvalidInputError(
        `runbook ${runbook.name} needs ${param.name} (${param.type}): ${param.description}`,
      );
    }
    params[param.name] = coerce(param, raw);
  }
  const { start, end } = params;
  if (typeof start === "string" && typeof end === "string" && Date.parse(end) < Date.parse(start)) {
    throw new InvalidInputError(`runbook ${runbook.name}: end (${end}) is before start (${start})`);
  }
  return {
    sql: runbook.sql,
    params,
    ...(paging.pageSize !== undefined ? { pageSize: paging.pageSize } : {}),
    ...(paging.pageToken !== undefined ? { pageToken: paging.pageToken } : {}),
    labels: { runbook: runbook.name },
  };
}

export interface RunbookLibrary {
  list(): Runbook[];
  names(): string[];
  /** Throws NotFoundError naming the runbooks that exist. */
  get(name: string): Runbook;
}

export function createRunbookLibrary(runbooks: readonly Runbook[]): RunbookLibrary {
  const byName = new Map<string, Runbook>();
  for (const runbook of runbooks) {
    if (byName.has(runbook.name)) throw new ConfigError(`two runbooks are named ${runbook.name}`);
    byName.set(runbook.name, runbook);
  }
  return {
    list: () => [...byName.values()],
    names: () => [...byName.keys()],
    get: (name) => {
      const runbook = byName.get(name);
      if (!runbook)
        throw new NotFoundError(`no runbook "${name}" (runbooks: ${[...byName.keys()].join(", ")})`);
      return runbook;
    },
  };
}

/**
 * functions/runbooks, found from this file both in the source tree (tsx) and in the
 * compiled tree (dist/functions/src/sql → the deployed source's functions/runbooks).
 */
export function defaultRunbookDir(): string {
  const candidates = ["../../runbooks/", "../../../../functions/runbooks/"].map((p) =>
    fileURLToPath(new URL(p, import.meta.url)),
  );
  const found = candidates.find((dir) => existsSync(dir));
  if (!found) throw new ConfigError(`runbook directory not found (looked in ${candidates.join(", ")})`);
  return found;
}

export function loadRunbooks(dir: string = defaultRunbookDir()): RunbookLibrary {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort();
  return createRunbookLibrary(files.map((f) => parseRunbook(readFileSync(`${dir}/${f}`, "utf8"), f)));
}
