import type { JsonValue } from "../json.js";

/**
 * Where a finding without a severity still says how bad it is. Documented or long-standing
 * sourceProperties keys, in order of trust:
 * - `detectionPriority`: Event Threat Detection's own priority (HIGH, MEDIUM, LOW);
 * - `SeverityLevel`: Security Health Analytics findings written before the severity field
 *   existed ("High", "Medium", "Low", "Critical");
 * - `severity`: Web Security Scanner findings repeat theirs in sourceProperties.
 * A hint is read only when the finding's own severity is absent or unspecified.
 */
const HINT_KEYS = ["detectionPriority", "SeverityLevel", "severity"] as const;

export interface SeverityHint {
  raw: string;
  path: string;
}

export function severityHints(sourceProperties: Record<string, JsonValue>): SeverityHint[] {
  const out: SeverityHint[] = [];
  for (const key of HINT_KEYS) {
    const value = sourceProperties[key];
    if (typeof value === "string" && value.trim())
      out.push({ raw: value.trim(), path: `sourceProperties.${key}` });
  }
  return out;
}
