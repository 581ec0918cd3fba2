import { z } from "zod";
import type { JsonObject, JsonValue } from "../../../domain/json.js";
import { tableForLogName } from "./table-name.js";

/**
 * A Cloud Logging LogEntry as `gcloud logging read --format=json` prints it and a Cloud
 * Storage sink writes it. Only what routing needs is validated; every other field passes
 * through the conversion below.
 */
export const LogEntrySchema = z.looseObject({
  logName: z.string().min(1),
  timestamp: z.string().optional(),
  protoPayload: z.looseObject({}).optional(),
  jsonPayload: z.looseObject({}).optional(),
  textPayload: z.string().optional(),
});
export type LogEntry = z.infer<typeof LogEntrySchema>;

/** LogEntry fields a sink keeps under their own names (BigQuery: "exactly the same"). */
const ENTRY_FIELDS = new Set([
  "logName",
  "resource",
  "timestamp",
  "receiveTimestamp",
  "severity",
  "insertId",
  "httpRequest",
  "operation",
  "trace",
  "spanId",
  "traceSampled",
  "sourceLocation",
  "split",
  "textPayload",
]);

/** Fields of an AuditLog that hold a google.protobuf.Struct and reach BigQuery as JSON text. */
const AUDIT_JSON_FIELDS: Record<string, string> = {
  request: "requestJson",
  response: "responseJson",
  metadata: "metadataJson",
};

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A user-supplied field name as BigQuery gets it: characters other than letters, digits and
 * underscores replaced by underscores, leading underscores removed, lower case, at most 128
 * characters.
 */
export function sinkFieldName(name: string): string {
  return name
    .replace(/[^A-Za-z0-9_]/g, "_")
    .replace(/^_+/, "")
    .toLowerCase()
    .slice(0, 128);
}

function userFields(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(userFields);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) {
    const name = sinkFieldName(key);
    if (name.length > 0 && !(name in out)) out[name] = userFields(inner);
  }
  return out;
}

/** The last component of a type URL: `type.googleapis.com/google.cloud.audit.AuditLog` → `auditlog`. */
function typeSuffix(typeUrl: string): string {
  return sinkFieldName(typeUrl.split(/[/.]/).at(-1) ?? "");
}

/**
 * `serviceData` of an AuditLog is named after its type: `google.iam.v1.logging.AuditData`
 * → `servicedata_v1_iam`, `google.cloud.bigquery.logging.v1.AuditData` →
 * `servicedata_v1_bigquery`. A type outside that pattern keeps its content as JSON text.
 */
export function serviceDataField(typeUrl: string | undefined): string | undefined {
  const m = /google\.(?:cloud\.)?([a-z0-9]+)\.(?:logging\.)?(v\d+)\.(?:logging\.)?AuditData$/.exec(
    typeUrl ?? "",
  );
  return m ? `servicedata_${m[2]}_${m[1]}` : undefined;
}

function withoutType(value: JsonObject): JsonObject {
  const { "@type": _ignored, ...rest } = value;
  return rest;
}

function auditPayload(payload: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(payload)) {
    if (key === "@type") continue;
    const jsonName = AUDIT_JSON_FIELDS[key];
    if (jsonName) {
      out[jsonName] = JSON.stringify(value);
    } else if (key === "serviceData" && isObject(value)) {
      const typeUrl = typeof value["@type"] === "string" ? value["@type"] : undefined;
      const name = serviceDataField(typeUrl);
      if (name) out[name] = withoutType(value);
      else out.serviceDataJson = JSON.stringify(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

export interface ConvertedEntry {
  table: string;
  row: JsonObject;
}

export class LogEntryError extends Error {}

/**
 * One LogEntry as the row a Cloud Logging → BigQuery sink writes, following Google's
 * "Schema for routed logs in BigQuery": LogEntry fields keep their names; user-supplied
 * names (labels, resource labels, jsonPayload keys) are sanitized and lower-cased; a
 * protoPayload is named after its @type (`protopayload_auditlog`), and inside an AuditLog
 * request/response/metadata become the JSON strings requestJson/responseJson/metadataJson
 * and serviceData the typed `servicedata_<version>_<service>`.
 */
export function convertLogEntry(raw: unknown): ConvertedEntry {
  const parsed = LogEntrySchema.safeParse(raw);
  if (!parsed.success) {
    const missing = parsed.error.issues.map((i) => i.path.join(".") || "(entry)").join(", ");
    throw new LogEntryError(`not a LogEntry (${missing})`);
  }
  const entry = raw as JsonObject;
  const table = tableForLogName(parsed.data.logName);
  if (!table) throw new LogEntryError(`logName "${parsed.data.logName.slice(0, 200)}" names no log`);
  const row: JsonObject = {};
  for (const [key, value] of Object.entries(entry)) {
    if (ENTRY_FIELDS.has(key)) {
      row[key] =
        key === "resource" && isObject(value)
          ? { ...value, ...(value.labels !== undefined ? { labels: userFields(value.labels) } : {}) }
          : value;
    } else if (key === "labels" || key === "jsonPayload") {
      row[key] = userFields(value);
    } else if (key === "protoPayload" && isObject(value)) {
      const typeUrl = typeof value["@type"] === "string" ? value["@type"] : "";
      const suffix = typeSuffix(typeUrl);
      if (suffix === "auditlog") row.protopayload_auditlog = auditPayload(value);
      else row[suffix ? `protopayload_${suffix}` : "protopayload"] = userFields(withoutType(value));
    }
    // Anything else is not a LogEntry field; the sink has no column for it.
  }
  return { table, row };
}
