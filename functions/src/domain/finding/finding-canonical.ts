import { z } from "zod";
import { apiVersionOf, type EnumField, enumName } from "./finding-enums.js";

/**
 * One finding in the shape the SCC API's JSON gives it (proto3 JSON: camelCase keys, enum
 * names, RFC 3339 times, sourceProperties a map), from the other serializations users hold:
 * - enum numbers instead of names (`"state": 1`, `"severity": 4`), read with the proto's
 *   numbering for the finding's API version (finding-enums.ts);
 * - snake_case field names, as the BigQuery export's `finding` and `resource` columns carry
 *   them (https://cloud.google.com/security-command-center/docs/how-to-analyze-findings-in-big-query);
 * - timestamps as protobuf Timestamp objects (`{"seconds": "…", "nanos": …}`) or BigQuery's
 *   `2023-06-02 05:17:41.936 UTC`;
 * - sourceProperties as a JSON string (BigQuery), a protobuf Struct (`{"fields": {k: Value}}`),
 *   or a key/value list (`[{"key": k, "value": v}]`, values plain or Value-wrapped), as SIEM
 *   exports and integrations carry a map;
 * - an eventTime that is missing or no time at all (a pipeline's anonymiser or a bad export)
 *   beside a readable createTime: the window is anchored on createTime, when SCC created the
 *   finding, at or after the event. Refusing would hide a real finding from examination.
 * Every rewrite is reported as a note, so what was changed is visible in `inspect`.
 */

export interface Canonical {
  payload: Record<string, unknown>;
  notes: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Map fields: their keys are data (a property name, a system name), never renamed. */
const MAP_FIELDS = new Set(["sourceProperties", "externalSystems", "contacts", "marks", "labels"]);

function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** snake_case message keys to camelCase, leaving map keys (and sourceProperties values) alone. */
function camelize(value: unknown, depth = 0): unknown {
  if (depth > 64) return value;
  if (Array.isArray(value)) return value.map((v) => camelize(v, depth + 1));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const name = camel(key);
    if (name === "sourceProperties") out[name] = inner;
    else if (MAP_FIELDS.has(name) && isRecord(inner))
      out[name] = Object.fromEntries(Object.entries(inner).map(([k, v]) => [k, camelize(v, depth + 2)]));
    else out[name] = camelize(inner, depth + 1);
  }
  return out;
}

function hasSnakeKeys(value: Record<string, unknown>): boolean {
  return Object.keys(value).some((k) => /^[a-z0-9]+(_[a-z0-9]+)+$/.test(k));
}

/** A protobuf Value in its JSON-object form ({stringValue: …}) to the plain value. */
function unwrapValue(value: unknown, depth = 0): unknown {
  if (!isRecord(value) || depth > 64) return value;
  const keys = Object.keys(value);
  if (keys.length !== 1) return value;
  const [key] = keys as [string];
  const inner = value[key];
  switch (key) {
    case "stringValue":
    case "numberValue":
    case "boolValue":
      return inner;
    case "nullValue":
      return null;
    case "structValue":
      return isRecord(inner) && isRecord(inner.fields) ? unwrapStruct(inner.fields, depth + 1) : value;
    case "listValue":
      return isRecord(inner) && Array.isArray(inner.values)
        ? inner.values.map((v) => unwrapValue(v, depth + 1))
        : value;
    default:
      return value;
  }
}

function unwrapStruct(fields: Record<string, unknown>, depth = 0): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, unwrapValue(v, depth + 1)]));
}

function isKeyValueList(value: unknown): value is { key: string; value?: unknown }[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => isRecord(item) && typeof item.key === "string" && Object.keys(item).length <= 2)
  );
}

/** sourceProperties in any of its serializations, as the map the API documents. */
export function sourcePropertiesMap(raw: unknown): { map?: Record<string, unknown>; how?: string } {
  if (typeof raw === "string") {
    const text = raw.trim();
    if (!text.startsWith("{")) return {};
    try {
      const parsed: unknown = JSON.parse(text);
      return isRecord(parsed) ? { map: parsed, how: "a JSON string" } : {};
    } catch {
      return {};
    }
  }
  if (isKeyValueList(raw)) {
    const map: Record<string, unknown> = {};
    for (const { key, value } of raw) map[key] = unwrapValue(value);
    return { map, how: `a key/value list of ${raw.length}` };
  }
  if (isRecord(raw) && Object.keys(raw).length === 1 && isRecord(raw.fields))
    return { map: unwrapStruct(raw.fields), how: "a protobuf Struct" };
  return {};
}

const TIME_FIELDS = ["eventTime", "createTime", "muteUpdateTime"] as const;
const BIGQUERY_TIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)(?: ?UTC| ?\+00(?::?00)?)$/;

function isoFrom(value: unknown): string | undefined {
  if (isRecord(value) && (value.seconds !== undefined || value.nanos !== undefined)) {
    const seconds = Number(value.seconds ?? 0);
    const nanos = Number(value.nanos ?? 0);
    if (!Number.isFinite(seconds) || !Number.isFinite(nanos)) return undefined;
    return new Date(seconds * 1000 + Math.floor(nanos / 1e6)).toISOString();
  }
  if (typeof value === "string") {
    const m = BIGQUERY_TIME.exec(value.trim());
    if (m) return `${m[1]}T${m[2]}Z`;
  }
  return undefined;
}

const IsoTime = z.iso.datetime({ offset: true });

function isIsoTime(value: unknown): value is string {
  return typeof value === "string" && IsoTime.safeParse(value).success;
}

const ENUM_FIELDS: readonly EnumField[] = ["state", "severity", "mute", "findingClass"];

function canonicalFinding(raw: Record<string, unknown>, notes: string[]): Record<string, unknown> {
  let f = raw;
  if (hasSnakeKeys(f) && f.eventTime === undefined && f.event_time !== undefined) {
    f = camelize(f) as Record<string, unknown>;
    notes.push("finding fields were snake_case (a BigQuery export row); read as the API's camelCase");
  }
  const out: Record<string, unknown> = { ...f };
  const version = apiVersionOf(typeof out.name === "string" ? out.name : "");
  for (const field of ENUM_FIELDS) {
    const value = out[field];
    if (typeof value !== "number" && !(typeof value === "string" && /^\d+$/.test(value))) continue;
    const name = enumName(field, value, version);
    if (name === undefined) {
      notes.push(`finding.${field} ${value} is not a ${version} proto number; kept verbatim`);
      continue;
    }
    out[field] = name;
    notes.push(`finding.${field} ${value} read as ${name} (the ${version} proto's numbering)`);
  }
  for (const field of TIME_FIELDS) {
    const iso = isoFrom(out[field]);
    if (iso === undefined) continue;
    notes.push(`finding.${field} ${JSON.stringify(out[field])} read as ${iso}`);
    out[field] = iso;
  }
  if (!isIsoTime(out.eventTime) && isIsoTime(out.createTime)) {
    const was =
      out.eventTime === undefined
        ? "is missing"
        : `${(JSON.stringify(out.eventTime) ?? "").slice(0, 60)} is not an ISO 8601 time`;
    notes.push(
      `finding.eventTime ${was}; the window is anchored on createTime ${out.createTime} (when SCC created the finding, at or after the event)`,
    );
    out.eventTime = out.createTime;
  }
  const sp = sourcePropertiesMap(out.sourceProperties);
  if (sp.map) {
    out.sourceProperties = sp.map;
    notes.push(`sourceProperties was ${sp.how}; unpacked into its map`);
  }
  return out;
}

/**
 * The notification-shaped payload ({finding, resource, …}) with its finding and resource in
 * the API's JSON form. Anything it does not recognise is left as it is.
 */
export function canonicalNotification(payload: unknown): Canonical {
  if (!isRecord(payload) || !isRecord(payload.finding))
    return { payload: payload as Record<string, unknown>, notes: [] };
  const notes: string[] = [];
  const out: Record<string, unknown> = { ...payload, finding: canonicalFinding(payload.finding, notes) };
  if (isRecord(payload.resource) && hasSnakeKeys(payload.resource)) {
    // Export rows name resource fields in snake_case; nothing is lost, so no note.
    out.resource = camelize(payload.resource);
  }
  return { payload: out, notes };
}
