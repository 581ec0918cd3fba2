/**
 * The BigQuery table a Cloud Logging sink writes a log to: the log ID (the part of
 * `logName` after `/logs/`, URL-decoded) with every character other than letters, digits
 * and underscores replaced by an underscore — `cloudaudit.googleapis.com%2Factivity`
 * becomes `cloudaudit_googleapis_com_activity`. Sinks add a date suffix for date-sharded
 * tables; ferret's local tables are the unsuffixed, partitioned form.
 */
const LOG_NAME = /^(?:projects|organizations|folders|billingAccounts)\/[^/]+\/logs\/(.+)$/;

export function tableForLogName(logName: string): string | undefined {
  const match = LOG_NAME.exec(logName.trim());
  if (!match) return undefined;
  let logId = match[1]!;
  try {
    logId = decodeURIComponent(logId);
  } catch {
    // A malformed escape stays as written; its % becomes an underscore below.
  }
  const table = logId.replace(/[^A-Za-z0-9_]/g, "_").replace(/^[^A-Za-z]+/, "");
  return table.length > 0 ? table : undefined;
}
