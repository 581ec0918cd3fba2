/**
 * Column-name tolerant access to rows: runbooks alias their columns, raw exports nest them
 * (jsonPayload.connection.dest_ip, protopayload_auditlog.requestMetadata.callerIp), and
 * BigQuery and DuckDB spell them slightly differently. Keys are compared by their last
 * path segment with case and underscores ignored.
 */
export type Flat = Map<string, unknown>;

function norm(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, "");
}

export function flatten(value: unknown, prefix = "", out: Flat = new Map(), depth = 0): Flat {
  if (depth > 6) return out;
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      flatten(v, prefix ? `${prefix}.${k}` : k, out, depth + 1);
    return out;
  }
  out.set(prefix, value);
  return out;
}

function lastSegment(path: string): string {
  return norm(path.slice(path.lastIndexOf(".") + 1));
}

/** The first non-empty value whose key (or last key segment) matches one of the aliases, in alias order. */
export function pick(row: Flat, aliases: readonly string[]): unknown {
  for (const alias of aliases) {
    const wanted = norm(alias);
    const dotted = alias.includes(".");
    for (const [key, value] of row) {
      const hit = dotted ? norm(key).endsWith(wanted) : lastSegment(key) === wanted;
      if (hit && value !== null && value !== undefined && value !== "") return value;
    }
  }
  return undefined;
}

export function pickString(row: Flat, aliases: readonly string[]): string | undefined {
  const value = pick(row, aliases);
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

export function pickNumber(row: Flat, aliases: readonly string[]): number | undefined {
  const value = pick(row, aliases);
  const n =
    typeof value === "number"
      ? value
      : typeof value === "string" && value.trim() !== ""
        ? Number(value)
        : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

export function pickStrings(row: Flat, aliases: readonly string[]): string[] {
  const value = pick(row, aliases);
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (typeof value === "string") return value.split(/[,;\s]+/).filter(Boolean);
  return [];
}

export function hasAny(row: Flat, aliases: readonly string[]): boolean {
  return pick(row, aliases) !== undefined;
}

/** Raw array values (not flattened), e.g. bindingDeltas. */
export function pickArray(row: Flat, aliases: readonly string[]): unknown[] | undefined {
  const value = pick(row, aliases);
  return Array.isArray(value) ? value : undefined;
}

/** Normalizes timestamps that drivers return as strings, numbers (µs/ms) or {value} objects. */
export function asTime(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim() !== "") {
    const ms = Date.parse(value.includes("T") || value.endsWith("Z") ? value : `${value.replace(" ", "T")}Z`);
    return Number.isNaN(ms) ? value : new Date(ms).toISOString().replace(/\.000Z$/, "Z");
  }
  if (typeof value === "number" && Number.isFinite(value)) {
    const ms = value > 1e14 ? value / 1000 : value > 1e11 ? value : value * 1000;
    return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
  }
  if (value && typeof value === "object" && "value" in value)
    return asTime((value as { value: unknown }).value);
  return undefined;
}

export const TIME_FIELDS = ["timestamp", "time", "event_time", "eventTime", "receiveTimestamp", "start_time"];
export const FIRST_FIELDS = [
  "first_seen",
  "firstSeen",
  "first",
  "first_time",
  "min_timestamp",
  "min_time",
  "earliest",
  "start",
  "first_attempt",
];
export const LAST_FIELDS = [
  "last_seen",
  "lastSeen",
  "last",
  "last_time",
  "max_timestamp",
  "max_time",
  "latest",
  "end",
  "last_attempt",
];
export const COUNT_FIELDS = [
  "count",
  "n",
  "cnt",
  "events",
  "event_count",
  "flows",
  "flow_count",
  "connections",
  "connection_count",
  "attempts",
  "calls",
  "call_count",
  "hits",
  "queries",
  "query_count",
  "reads",
  "total",
  "num",
  "lookups",
  "lines",
];

export function spanOf(row: Flat): { count: number; first?: string; last?: string } {
  const count = pickNumber(row, COUNT_FIELDS);
  const at = asTime(pick(row, TIME_FIELDS));
  const first = asTime(pick(row, FIRST_FIELDS)) ?? at;
  const last = asTime(pick(row, LAST_FIELDS)) ?? at;
  return {
    count: count !== undefined && count >= 0 ? Math.round(count) : 1,
    ...(first ? { first } : {}),
    ...(last ? { last } : {}),
  };
}
