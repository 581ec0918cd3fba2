import type { Intent } from "./intents.js";
import { isIpv4 } from "./net.js";
import { safeValues } from "./step-text.js";

/**
 * Read-only BigQuery SQL for each intent, over the Cloud Logging export schema
 * (functions/src/sql/log-schema.ts), for when no runbook fits. Values are inlined only
 * after safeValues() has reduced them to plain tokens (no quotes, no backslashes), so a
 * hostile finding field cannot change the statement. The SQL guard still checks it.
 */
export interface SqlQuery {
  /** What the query answers, for the call record. */
  label: string;
  sql: string;
}

const FLOWS = "compute_googleapis_com_vpc_flows";
const DNS = "dns_googleapis_com_dns_queries";
const SYSLOG = "syslog";
const ACTIVITY = "cloudaudit_googleapis_com_activity";
const DATA_ACCESS = "cloudaudit_googleapis_com_data_access";
const REQUESTS = "requests";

const P = "protopayload_auditlog";
const HOST = "labels.compute_googleapis_com_resource_name";

function lit(value: string): string {
  return `'${value}'`;
}

function inList(values: readonly string[]): string {
  return `(${values.map(lit).join(", ")})`;
}

function timeFilter(intent: Intent): string {
  const start = safeValues(intent.params.start ?? [])[0];
  const end = safeValues(intent.params.end ?? [])[0];
  if (!start || !end) return "TRUE";
  return `timestamp BETWEEN TIMESTAMP ${lit(start)} AND TIMESTAMP ${lit(end)}`;
}

function values(intent: Intent, key: keyof Intent["params"]): string[] {
  return safeValues(intent.params[key] ?? []);
}

/*
 * Identities match exactly or by an anchored form, never by substring, so a longer name that
 * contains a shorter one (backdoor-deploy@… and deploy@…, web-10 and web-1) is never attributed
 * to it (decision 0046). The runbooks use the same forms; test/unit/duckdb/identity-twins.test.ts
 * checks both against logs with such twins.
 */

/**
 * The value is a run of whole '/'-separated segments of the column (a name, `instances/web-1`,
 * a full path, or a resource under it), or the column is the tail of the full name given
 * (`//compute.googleapis.com/projects/…` against a logged `projects/…`). Case-insensitive.
 */
function segmentsAny(column: string, values: readonly string[]): string {
  const col = `LOWER(${column})`;
  return `(${values
    .map((v) => v.toLowerCase())
    .map(
      (v) =>
        `STRPOS(CONCAT('/', ${col}, '/'), ${lit(`/${v}/`)}) > 0 OR ENDS_WITH(${lit(v)}, CONCAT('/', ${col}))`,
    )
    .join(" OR ")})`;
}

/** An IAM member (`user:x@y`, `serviceAccount:x@y`) that is the value, with or without its type. */
function memberAny(column: string, values: readonly string[]): string {
  const col = `LOWER(${column})`;
  return `(${values
    .map((v) => v.toLowerCase())
    .map((v) => `${col} = ${lit(v)} OR ENDS_WITH(${col}, ${lit(`:${v}`)})`)
    .join(" OR ")})`;
}

/** What continues a name: a letter, a digit, or one of _ . @ - (as in host_syslog_search.sql). */
const NAME_CHAR = /[\p{L}\p{N}_.@-]/u;
/** The same class as BigQuery string literals (backslashes doubled; the DuckDB target re-renders them). */
const NAME_CLASS = "\\\\p{L}\\\\p{N}_.@-";

/**
 * Lines holding any term as text that does not cut a name: where a term begins or ends with a
 * name character, the line must not continue that name there (10.0.0.1 is not 10.0.0.12).
 * Terms are plain tokens (safeValues); the three of their characters RE2 reads as operators are
 * put in brackets.
 */
function textAny(column: string, terms: readonly string[]): string {
  const patterns = terms.map((t) => {
    const body = t.toLowerCase().replace(/[.+*]/g, (c) => `[${c}]`);
    const before = NAME_CHAR.test(t.at(0) ?? "") ? `(?:^|[^${NAME_CLASS}])` : "";
    const after = NAME_CHAR.test(t.at(-1) ?? "") ? `(?:$|[^${NAME_CLASS}])` : "";
    return `${before}${body}${after}`;
  });
  return `(${patterns.map((p) => `REGEXP_EXTRACT(LOWER(${column}), '${p}') <> ''`).join(" OR ")})`;
}

const AUDIT_COLUMNS = [
  `${P}.methodName AS method`,
  `${P}.authenticationInfo.principalEmail AS principal`,
  `${P}.requestMetadata.callerIp AS caller_ip`,
  `${P}.requestMetadata.callerSuppliedUserAgent AS user_agent`,
];

function auditSummary(table: string, where: string[], extraColumns: string[] = [], limit = 50): string {
  const columns = [...AUDIT_COLUMNS, ...extraColumns];
  const groups = columns.map((_, i) => i + 1).join(", ");
  return [
    `SELECT ${columns.join(", ")}, COUNT(*) AS calls, MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen`,
    `FROM ${table}`,
    `WHERE ${where.join(" AND ")}`,
    `GROUP BY ${groups}`,
    `ORDER BY calls DESC`,
    `LIMIT ${limit}`,
  ].join("\n");
}

function bindingChanges(where: string[]): string {
  return [
    `SELECT timestamp, ${AUDIT_COLUMNS.join(", ")}, ${P}.resourceName AS resource_name, d.action AS binding_action, d.role AS role, d.member AS member`,
    `FROM ${ACTIVITY}, UNNEST(${P}.servicedata_v1_iam.policyDelta.bindingDeltas) AS d`,
    `WHERE ${where.join(" AND ")}`,
    "ORDER BY timestamp",
    "LIMIT 100",
  ].join("\n");
}

function flowSummary(intent: Intent): SqlQuery[] {
  const ips = values(intent, "ips").filter(isIpv4);
  const instance = values(intent, "instance")[0];
  const ports = values(intent, "ports").filter((p) => /^\d+$/.test(p));
  const where = [timeFilter(intent)];
  if (ips.length > 0)
    where.push(
      `(jsonPayload.connection.dest_ip IN ${inList(ips)} OR jsonPayload.connection.src_ip IN ${inList(ips)})`,
    );
  else if (instance)
    where.push(
      `(jsonPayload.src_instance.vm_name = ${lit(instance)} OR jsonPayload.dest_instance.vm_name = ${lit(instance)})`,
    );
  if (ports.length > 0) where.push(`jsonPayload.connection.dest_port IN (${ports.join(", ")})`);
  return [
    {
      label: "VPC flows by endpoint pair and port",
      sql: [
        "SELECT jsonPayload.connection.src_ip AS src_ip, jsonPayload.connection.dest_ip AS dest_ip, jsonPayload.connection.dest_port AS dest_port,",
        "  COUNT(*) AS flows, SUM(CAST(jsonPayload.bytes_sent AS INT64)) AS bytes, SUM(CAST(jsonPayload.packets_sent AS INT64)) AS packets,",
        "  MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen",
        `FROM ${FLOWS}`,
        `WHERE ${where.join(" AND ")}`,
        "GROUP BY 1, 2, 3",
        "ORDER BY flows DESC",
        "LIMIT 50",
      ].join("\n"),
    },
  ];
}

function egressSummary(intent: Intent): SqlQuery[] {
  const instance = values(intent, "instance")[0];
  const where = [timeFilter(intent), "jsonPayload.dest_instance.vm_name IS NULL"];
  if (instance) where.push(`jsonPayload.src_instance.vm_name = ${lit(instance)}`);
  return [
    {
      label: "top external destinations",
      sql: [
        "SELECT jsonPayload.src_instance.vm_name AS vm_name, jsonPayload.connection.src_ip AS src_ip, jsonPayload.connection.dest_ip AS dest_ip,",
        "  jsonPayload.connection.dest_port AS dest_port, COUNT(*) AS flows, SUM(CAST(jsonPayload.bytes_sent AS INT64)) AS bytes,",
        "  MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen",
        `FROM ${FLOWS}`,
        `WHERE ${where.join(" AND ")}`,
        "GROUP BY 1, 2, 3, 4",
        "ORDER BY bytes DESC",
        "LIMIT 20",
      ].join("\n"),
    },
  ];
}

function ingressSummary(intent: Intent): SqlQuery[] {
  const instance = values(intent, "instance")[0];
  if (!instance) return [];
  const where = [timeFilter(intent), `jsonPayload.dest_instance.vm_name = ${lit(instance)}`];
  return [
    {
      label: "who connected to the workload",
      sql: [
        "SELECT jsonPayload.connection.src_ip AS src_ip, jsonPayload.connection.dest_port AS dest_port,",
        "  jsonPayload.src_instance.vm_name IS NULL AS external, COUNT(*) AS flows,",
        "  SUM(CAST(jsonPayload.bytes_sent AS INT64)) AS bytes, MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen",
        `FROM ${FLOWS}`,
        `WHERE ${where.join(" AND ")}`,
        "GROUP BY 1, 2, 3",
        "ORDER BY flows DESC",
        "LIMIT 20",
      ].join("\n"),
    },
  ];
}

function dnsSummary(intent: Intent): SqlQuery[] {
  const domains = values(intent, "domains").map((d) => d.toLowerCase().replace(/\.$/, ""));
  const instance = values(intent, "instance")[0];
  const where = [timeFilter(intent)];
  if (domains.length > 0) {
    const names = domains.flatMap((d) => [
      `LOWER(jsonPayload.queryName) = ${lit(`${d}.`)}`,
      `ENDS_WITH(LOWER(jsonPayload.queryName), ${lit(`.${d}.`)})`,
    ]);
    where.push(`(${names.join(" OR ")})`);
  } else if (instance)
    // Cloud DNS names the VM as <project>.<vm> in some exports, the bare name in others.
    where.push(
      `(jsonPayload.vmInstanceName = ${lit(instance)} OR ENDS_WITH(jsonPayload.vmInstanceName, ${lit(`.${instance}`)}))`,
    );
  return [
    {
      label: "DNS queries by name, client and answer",
      sql: [
        "SELECT jsonPayload.queryName AS query_name, jsonPayload.vmInstanceName AS vm_instance, jsonPayload.sourceIP AS source_ip,",
        "  jsonPayload.responseCode AS response_code, jsonPayload.rdata AS rdata, COUNT(*) AS queries, MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen",
        `FROM ${DNS}`,
        `WHERE ${where.join(" AND ")}`,
        "GROUP BY 1, 2, 3, 4, 5",
        "ORDER BY queries DESC",
        "LIMIT 50",
      ].join("\n"),
    },
  ];
}

function sshAuth(intent: Intent): SqlQuery[] {
  const ips = values(intent, "ips").filter(isIpv4);
  const instance = values(intent, "instance")[0];
  const base = [timeFilter(intent)];
  if (instance) base.push(`${HOST} = ${lit(instance)}`);
  const source = ips.length
    ? `CASE ${ips.map((ip) => `WHEN textPayload LIKE ${lit(`%from ${ip} %`)} THEN ${lit(ip)}`).join(" ")} ELSE 'other' END`
    : "'any'";
  return [
    {
      label: "sshd logins by outcome and source",
      sql: [
        `SELECT CASE WHEN textPayload LIKE '%Accepted %' THEN 'accepted' ELSE 'failed' END AS outcome, ${source} AS source_ip,`,
        `  ${HOST} AS host, COUNT(*) AS attempts, MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen`,
        `FROM ${SYSLOG}`,
        `WHERE ${[...base, "(textPayload LIKE '%Failed password for%' OR textPayload LIKE '%Failed publickey for%' OR textPayload LIKE '%Accepted %')"].join(" AND ")}`,
        "GROUP BY 1, 2, 3",
        "ORDER BY attempts DESC",
        "LIMIT 50",
      ].join("\n"),
    },
    {
      label: "accepted logins",
      sql: [
        `SELECT timestamp, ${HOST} AS host, textPayload`,
        `FROM ${SYSLOG}`,
        `WHERE ${[...base, "textPayload LIKE '%Accepted %'"].join(" AND ")}`,
        "ORDER BY timestamp",
        "LIMIT 50",
      ].join("\n"),
    },
  ];
}

function hostLogs(intent: Intent): SqlQuery[] {
  const instance = values(intent, "instance")[0];
  const terms = [
    ...values(intent, "terms"),
    ...values(intent, "ips"),
    ...values(intent, "domains"),
    ...values(intent, "hashes"),
  ].slice(0, 12);
  const where = [timeFilter(intent)];
  if (instance) where.push(`${HOST} = ${lit(instance)}`);
  if (terms.length > 0) where.push(textAny("textPayload", terms));
  return [
    {
      label: "matching syslog lines",
      sql: [
        `SELECT timestamp, ${HOST} AS host, textPayload`,
        `FROM ${SYSLOG}`,
        `WHERE ${where.join(" AND ")}`,
        "ORDER BY timestamp",
        "LIMIT 100",
      ].join("\n"),
    },
  ];
}

function iamChanges(intent: Intent): SqlQuery[] {
  const members = values(intent, "member");
  const principals = values(intent, "principal");
  const where = [timeFilter(intent)];
  if (members.length > 0) where.push(memberAny("d.member", members));
  const out: SqlQuery[] = [{ label: "IAM binding changes", sql: bindingChanges(where) }];
  const who = [...principals, ...members];
  if (who.length > 0) {
    out.push({
      label: "IAM and key changes by or for the principals",
      sql: auditSummary(
        ACTIVITY,
        [
          timeFilter(intent),
          `(${P}.authenticationInfo.principalEmail IN ${inList(who)} OR ${segmentsAny(`${P}.resourceName`, who)})`,
          `(${P}.methodName LIKE '%SetIamPolicy%' OR ${P}.methodName LIKE '%Key%' OR ${P}.methodName LIKE '%ServiceAccount%')`,
        ],
        [`${P}.resourceName AS resource_name`],
      ),
    });
  }
  return out;
}

function principalActivity(intent: Intent): SqlQuery[] {
  const principals = values(intent, "principal");
  if (principals.length === 0) return [];
  const where = [timeFilter(intent), `${P}.authenticationInfo.principalEmail IN ${inList(principals)}`];
  return [
    { label: "admin activity of the principals", sql: auditSummary(ACTIVITY, where) },
    { label: "data access of the principals", sql: auditSummary(DATA_ACCESS, where) },
  ];
}

function callerActivity(intent: Intent): SqlQuery[] {
  const ips = values(intent, "ips");
  if (ips.length === 0) return [];
  const where = [timeFilter(intent), `${P}.requestMetadata.callerIp IN ${inList(ips)}`];
  return [
    { label: "admin activity from the caller IPs", sql: auditSummary(ACTIVITY, where) },
    { label: "data access from the caller IPs", sql: auditSummary(DATA_ACCESS, where) },
  ];
}

function resourceActivity(intent: Intent): SqlQuery[] {
  const resources = [
    ...values(intent, "resource"),
    ...values(intent, "instance"),
    ...values(intent, "bucket"),
  ];
  const where = [timeFilter(intent)];
  if (resources.length > 0) where.push(segmentsAny(`${P}.resourceName`, resources));
  return [
    {
      label: "admin activity on the resource",
      sql: auditSummary(ACTIVITY, where, [`${P}.resourceName AS resource_name`]),
    },
  ];
}

function bucketAccess(intent: Intent): SqlQuery[] {
  const bucket = values(intent, "bucket")[0];
  const where = [timeFilter(intent)];
  if (bucket)
    where.push(
      `(resource.labels.bucket_name = ${lit(bucket)} OR ${segmentsAny(`${P}.resourceName`, [`buckets/${bucket}`])})`,
    );
  return [
    {
      label: "data access on the bucket",
      sql: auditSummary(DATA_ACCESS, where, [`${P}.resourceName AS resource_name`], 100),
    },
  ];
}

function bucketPolicy(intent: Intent): SqlQuery[] {
  const bucket = values(intent, "bucket")[0];
  const onBucket = bucket ? [segmentsAny(`${P}.resourceName`, [`buckets/${bucket}`])] : [];
  return [
    { label: "IAM binding changes on the bucket", sql: bindingChanges([timeFilter(intent), ...onBucket]) },
    {
      label: "admin activity on the bucket",
      sql: auditSummary(ACTIVITY, [timeFilter(intent), ...onBucket], [`${P}.resourceName AS resource_name`]),
    },
  ];
}

function principalHistory(intent: Intent): SqlQuery[] {
  const principals = values(intent, "principal");
  const recent = values(intent, "recent")[0] ?? values(intent, "start")[0];
  if (principals.length === 0 || !recent) return [];
  const split = `TIMESTAMP ${lit(recent)}`;
  return [ACTIVITY, DATA_ACCESS].map((table) => ({
    label: `history of the principals (${table === ACTIVITY ? "admin activity" : "data access"})`,
    sql: [
      `SELECT ${P}.authenticationInfo.principalEmail AS principal, ${P}.requestMetadata.callerIp AS caller_ip,`,
      `  ${P}.requestMetadata.callerSuppliedUserAgent AS user_agent, ${P}.methodName AS method,`,
      `  COUNTIF(timestamp < ${split}) AS calls_before, COUNT(DISTINCT IF(timestamp < ${split}, CAST(timestamp AS DATE), NULL)) AS days_before,`,
      `  COUNTIF(timestamp >= ${split}) AS calls_recent, MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen`,
      `FROM ${table}`,
      `WHERE ${timeFilter(intent)} AND ${P}.authenticationInfo.principalEmail IN ${inList(principals)}`,
      "GROUP BY 1, 2, 3, 4",
      "ORDER BY calls_recent DESC, days_before DESC",
      "LIMIT 100",
    ].join("\n"),
  }));
}

function deniedAllowed(intent: Intent): SqlQuery[] {
  return [
    {
      label: "denied, then allowed",
      sql: [
        `SELECT ${P}.authenticationInfo.principalEmail AS principal, ${P}.requestMetadata.callerIp AS caller_ip, ${P}.serviceName AS service,`,
        `  COUNTIF(${P}.status.code IS NOT NULL AND ${P}.status.code != 0) AS denied, COUNTIF(${P}.status.code IS NULL OR ${P}.status.code = 0) AS allowed,`,
        `  MAX(IF(${P}.status.code IS NOT NULL AND ${P}.status.code != 0, timestamp, NULL)) AS last_denied,`,
        `  MAX(IF(${P}.status.code IS NULL OR ${P}.status.code = 0, timestamp, NULL)) AS first_allowed_after_denial,`,
        "  MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen",
        `FROM ${ACTIVITY}`,
        `WHERE ${timeFilter(intent)}`,
        "GROUP BY 1, 2, 3",
        "HAVING denied > 0",
        "ORDER BY denied DESC",
        "LIMIT 50",
      ].join("\n"),
    },
  ];
}

/** Audit-config deltas and Logging config calls: what stopped (or started) being logged, and who changed it. */
function loggingChanges(intent: Intent): SqlQuery[] {
  return [
    {
      label: "changes to what is logged",
      sql: [
        `SELECT timestamp, ${AUDIT_COLUMNS.join(", ")}, ${P}.resourceName AS resource_name, d.action AS action, d.service AS logged_service, d.logType AS log_type`,
        `FROM ${ACTIVITY}, UNNEST(${P}.servicedata_v1_iam.policyDelta.auditConfigDeltas) AS d`,
        `WHERE ${timeFilter(intent)}`,
        "ORDER BY timestamp",
        "LIMIT 100",
      ].join("\n"),
    },
  ];
}

function lbRequests(intent: Intent): SqlQuery[] {
  const ips = values(intent, "ips").filter(isIpv4);
  const backend = values(intent, "backend")[0];
  const where = [timeFilter(intent)];
  if (ips.length > 0) where.push(`httpRequest.remoteIp IN ${inList(ips)}`);
  else if (backend) where.push(`resource.labels.backend_service_name = ${lit(backend)}`);
  else return [];
  return [
    {
      label: "load balancer requests and the Cloud Armor verdict",
      sql: [
        "SELECT httpRequest.remoteIp AS remote_ip, resource.labels.backend_service_name AS backend_service, httpRequest.status AS http_status,",
        "  jsonPayload.statusDetails AS status_details, jsonPayload.enforcedSecurityPolicy.name AS security_policy,",
        "  jsonPayload.enforcedSecurityPolicy.outcome AS policy_outcome, COUNT(*) AS requests, MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen",
        `FROM ${REQUESTS}`,
        `WHERE ${where.join(" AND ")}`,
        "GROUP BY 1, 2, 3, 4, 5, 6",
        "ORDER BY requests DESC",
        "LIMIT 50",
      ].join("\n"),
    },
  ];
}

/** The statements that answer an intent; empty when the intent has no values to query with. */
export function sqlFor(intent: Intent): SqlQuery[] {
  switch (intent.kind) {
    case "intel":
      return [];
    case "flows":
      return flowSummary(intent);
    case "egress":
      return egressSummary(intent);
    case "ingress":
      return ingressSummary(intent);
    case "dns":
      return dnsSummary(intent);
    case "ssh_auth":
      return sshAuth(intent);
    case "host_logs":
      return hostLogs(intent);
    case "iam_changes":
      return iamChanges(intent);
    case "principal_activity":
      return principalActivity(intent);
    case "caller_activity":
      return callerActivity(intent);
    case "resource_activity":
      return resourceActivity(intent);
    case "bucket_access":
      return bucketAccess(intent);
    case "bucket_policy":
      return bucketPolicy(intent);
    case "principal_history":
      return principalHistory(intent);
    case "denied_allowed":
      return deniedAllowed(intent);
    case "lb_requests":
      return lbRequests(intent);
    case "logging_changes":
      return loggingChanges(intent);
  }
}

/** The field whose distinct values tell whether an empty result was a wrong value rather than absence. */
export interface ProbeField {
  label: string;
  table: string;
  column: string;
}

export function probeFieldFor(kind: Intent["kind"]): ProbeField | undefined {
  const field = (label: string, table: string, column: string): ProbeField => ({ label, table, column });
  switch (kind) {
    case "flows":
    case "egress":
      return field("VM names present in flow logs", FLOWS, "jsonPayload.src_instance.vm_name");
    case "ingress":
      return field("VM names present in flow logs", FLOWS, "jsonPayload.dest_instance.vm_name");
    case "dns":
      return field("DNS clients present", DNS, "jsonPayload.vmInstanceName");
    case "ssh_auth":
    case "host_logs":
      return field("hosts present in syslog", SYSLOG, HOST);
    case "principal_activity":
    case "caller_activity":
    case "resource_activity":
    case "iam_changes":
    case "bucket_policy":
      return field(
        "principals present in admin activity",
        ACTIVITY,
        `${P}.authenticationInfo.principalEmail`,
      );
    case "bucket_access":
      return field("buckets present in data access", DATA_ACCESS, "resource.labels.bucket_name");
    case "principal_history":
    case "denied_allowed":
    case "logging_changes":
      return field(
        "principals present in admin activity",
        ACTIVITY,
        `${P}.authenticationInfo.principalEmail`,
      );
    case "lb_requests":
      return field(
        "backend services present in load balancer logs",
        REQUESTS,
        "resource.labels.backend_service_name",
      );
    case "intel":
      return undefined;
  }
}

/** The distinct-values probe of an intent's key field, as SQL over the intent's window. */
export function distinctProbe(intent: Intent): SqlQuery | undefined {
  const field = probeFieldFor(intent.kind);
  if (!field) return undefined;
  return {
    label: field.label,
    sql: `SELECT ${field.column} AS value, COUNT(*) AS n, MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen FROM ${field.table} WHERE ${timeFilter(intent)} GROUP BY 1 ORDER BY n DESC LIMIT 20`,
  };
}
