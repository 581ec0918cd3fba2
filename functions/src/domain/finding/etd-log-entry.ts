/**
 * An Event Threat Detection finding as Cloud Logging stores it: a LogEntry of the log
 * `threatdetection.googleapis.com/detection` on the monitored resource `threat_detector`, whose
 * `jsonPayload` is the finding (Google's index of platform logs, "Event Threat Detection":
 * https://cloud.google.com/logging/docs/api/platform-logs — log ID
 * `threatdetection.googleapis.com%2Fdetection`, monitored resource `threat_detector`, payload
 * "Event Threat Detection finding"; the ETD page says findings can be viewed in Cloud Logging:
 * https://cloud.google.com/security-command-center/docs/how-to-use-event-threat-detection).
 *
 * The payload is ETD's own finding layout (detectionCategory, detectionPriority, eventTime,
 * evidence, properties, sourceId, affectedResources): the layout SCC kept, nested or
 * flattened, as the finding's `sourceProperties` (finding-field-meaning.ts,
 * SOURCE_PROPERTY_LAYOUTS). So the entry becomes a finding whose sourceProperties is the payload,
 * and its indicators are read by that same table, not by a list of their own.
 *
 * LogEntry fields (https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry): logName
 * ("projects/[PROJECT_ID]/logs/[LOG_ID]", the LOG_ID URL-encoded), resource ({type, labels}),
 * timestamp, insertId ("a unique identifier for the log entry"), severity, receiveTimestamp.
 */

const LOG_ID = "threatdetection.googleapis.com/detection";
const RESOURCE_TYPE = "threat_detector";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** The log ID of a logName, URL-decoded; undefined when the name is not `…/logs/<id>` or not decodable. */
export function logIdOf(logName: unknown): string | undefined {
  const raw = typeof logName === "string" ? /\/logs\/([^/]+)$/.exec(logName)?.[1] : undefined;
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** A LogEntry written by Event Threat Detection: its log ID or its monitored resource type says so. */
export function isEtdLogEntry(value: unknown): value is Record<string, unknown> & {
  jsonPayload: Record<string, unknown>;
} {
  if (!isRecord(value) || !isRecord(value.jsonPayload)) return false;
  const resourceType = isRecord(value.resource) ? value.resource.type : undefined;
  return logIdOf(value.logName) === LOG_ID || resourceType === RESOURCE_TYPE;
}

/**
 * The finding an ETD log entry carries, in the bare-finding shape parseNotification reads:
 * - `name`: the entry's own identity (its logName and insertId; the entry names no SCC finding);
 * - `category`: ETD's detectionCategory, "<technique>: <ruleName>" as SCC spelt legacy ETD
 *   categories ("C2: Bad IP" from technique C2 and rule bad_ip; the catalog key ignores case and
 *   punctuation), or the rule alone;
 * - `eventTime`: the payload's eventTime, else the entry's timestamp;
 * - `resourceName`: the first of affectedResources (where SCC put it);
 * - `sourceProperties`: the payload, whole; severity then comes from its detectionPriority
 *   (severity-hints.ts), as for every legacy ETD finding;
 * - `state`: ACTIVE. ETD writes the entry at the moment it detects, and a log entry is never
 *   updated afterwards, so nothing can say the detection stopped; reading it as unspecified
 *   would let ingest skip a real detection unexamined.
 * Whatever the entry lacks stays absent, so parseNotification refuses an entry with no time.
 */
export function etdLogEntryFinding(
  entry: Record<string, unknown> & { jsonPayload: Record<string, unknown> },
): {
  finding: Record<string, unknown>;
  logEntry: Record<string, unknown>;
} {
  const payload = entry.jsonPayload;
  const category = isRecord(payload.detectionCategory) ? payload.detectionCategory : {};
  const rule = text(category.ruleName);
  const technique = text(category.technique);
  const affected = Array.isArray(payload.affectedResources) ? payload.affectedResources[0] : undefined;
  const resourceName = isRecord(affected) ? text(affected.gcpResourceName) : undefined;
  const logName = text(entry.logName);
  const id = text(entry.insertId) ?? text(entry.timestamp);
  const eventTime = text(payload.eventTime) ?? text(entry.timestamp);
  const finding: Record<string, unknown> = {
    ...(logName && id ? { name: `${logName}/entries/${id}` } : {}),
    ...(rule ? { category: technique ? `${technique}: ${rule}` : rule } : {}),
    ...(eventTime ? { eventTime } : {}),
    ...(resourceName ? { resourceName } : {}),
    parentDisplayName: "Event Threat Detection",
    state: "ACTIVE",
    sourceProperties: payload,
  };
  const { jsonPayload: _payload, ...logEntry } = entry;
  return { finding, logEntry };
}
