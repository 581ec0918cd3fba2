/**
 * The exported Cloud Logging tables ferret knows, with the schema a Cloud Logging →
 * BigQuery sink gives them (field names sanitized the way the sink does it, e.g.
 * protoPayload → protopayload_auditlog). Types are BigQuery's. The descriptions are what
 * the agent reads to choose a table, so they say what each table answers.
 */
export type ScalarType = "STRING" | "INT64" | "FLOAT64" | "BOOL" | "TIMESTAMP";

/** The kind of indicator a column holds, where its name does not already say it (log-columns.ts). */
export type ColumnIndicatorKind = "ip" | "domain" | "url" | "hash" | "principal";

export interface FieldDef {
  name: string;
  type: ScalarType | readonly FieldDef[];
  repeated?: boolean;
  description?: string;
  /** Declared only where the name declares no kind by its last word (queryName is a domain). */
  indicator?: ColumnIndicatorKind;
}

export interface LogTableDef {
  name: string;
  description: string;
  fields: readonly FieldDef[];
}

const s = (name: string, description?: string): FieldDef => ({ name, type: "STRING", description });
const i = (name: string, description?: string): FieldDef => ({ name, type: "INT64", description });
const b = (name: string, description?: string): FieldDef => ({ name, type: "BOOL", description });
const ts = (name: string, description?: string): FieldDef => ({ name, type: "TIMESTAMP", description });
const struct = (name: string, fields: readonly FieldDef[], description?: string): FieldDef => ({
  name,
  type: fields,
  description,
});
const repeated = (name: string, fields: readonly FieldDef[], description?: string): FieldDef => ({
  name,
  type: fields,
  repeated: true,
  description,
});

function entry(resourceLabels: readonly FieldDef[], payload: readonly FieldDef[]): FieldDef[] {
  return [
    s("logName", "projects/<project>/logs/<log id>"),
    struct("resource", [
      s("type", "monitored resource type, e.g. gce_instance, gcs_bucket, project"),
      struct("labels", resourceLabels),
    ]),
    ts("timestamp", "when the event happened (UTC); filter every query on it"),
    ts("receiveTimestamp", "when Cloud Logging received the entry"),
    s("severity", "DEFAULT, INFO, NOTICE, WARNING, ERROR, …"),
    s("insertId", "unique id of the log entry"),
    ...payload,
  ];
}

const AUDIT_RESOURCE_LABELS = [
  s("project_id"),
  s("instance_id", "gce_instance"),
  s("zone", "gce_instance"),
  s("bucket_name", "gcs_bucket"),
  s("email_id", "service_account"),
  s("unique_id", "service_account"),
  s("service", "audited_resource"),
  s("service_name", "cloud_run_revision"),
  s("method", "audited_resource"),
  s("cluster_name", "k8s_cluster: the GKE cluster (Kubernetes audit logs)"),
  s("location", "k8s_cluster and gcs_bucket: the cluster's zone or region, the bucket's location"),
  s("database_id", "cloudsql_database: <project>:<Cloud SQL instance>"),
  s("region", "cloudsql_database, regional resources"),
  s("dataset_id", "bigquery_dataset"),
  s("backend_service_name", "the load balancer's backend service"),
];

const AUDIT_PAYLOAD = struct("protopayload_auditlog", [
  s("serviceName", "API service, e.g. iam.googleapis.com, storage.googleapis.com, compute.googleapis.com"),
  s(
    "methodName",
    "API method, e.g. SetIamPolicy, google.iam.admin.v1.CreateServiceAccountKey, storage.objects.get",
  ),
  s("resourceName", "the resource acted on, e.g. projects/_/buckets/<bucket>/objects/<object>"),
  struct("status", [i("code", "0 or NULL = OK; 7 = PERMISSION_DENIED"), s("message")]),
  struct("authenticationInfo", [
    s("principalEmail", "who made the call (user or service account)"),
    s("principalSubject"),
    s("serviceAccountKeyName", "set when a service-account key authenticated the call (key usage)"),
    repeated("serviceAccountDelegationInfo", [struct("firstPartyPrincipal", [s("principalEmail")])]),
  ]),
  repeated(
    "authorizationInfo",
    [s("resource"), s("permission"), b("granted")],
    "permission checks; UNNEST to read",
  ),
  struct("requestMetadata", [
    s("callerIp", "source IP of the API call ('private' or 'gce-internal-ip' for internal callers)"),
    s("callerSuppliedUserAgent"),
    s("callerNetwork", "the caller's VPC network, for calls from inside Google Cloud"),
    struct("requestAttributes", [
      struct("auth", [
        {
          name: "accessLevels",
          type: "STRING",
          repeated: true,
          description:
            "Access Context Manager access levels the request satisfied (e.g. a managed-device level); ARRAY_TO_STRING to read",
        },
      ]),
    ]),
  ]),
  s("requestJson", "the request as a JSON string (search it with LIKE or JSON functions)"),
  s("responseJson", "the response as a JSON string"),
  s("metadataJson", "service-specific metadata as a JSON string"),
  struct("servicedata_v1_iam", [
    struct("policyDelta", [
      repeated(
        "bindingDeltas",
        [s("action", "ADD or REMOVE"), s("role"), s("member", "e.g. user:x@example.com, allUsers")],
        "IAM binding changes of a SetIamPolicy call; UNNEST to read",
      ),
      repeated(
        "auditConfigDeltas",
        [
          s("action", "ADD or REMOVE"),
          s("service", "e.g. storage.googleapis.com or allServices"),
          s("logType", "ADMIN_READ, DATA_READ or DATA_WRITE"),
          s("exemptedMember"),
        ],
        "audit logging changes of a SetIamPolicy call (what stops being logged); UNNEST to read",
      ),
    ]),
  ]),
]);

export const LOG_TABLES: readonly LogTableDef[] = [
  {
    name: "cloudaudit_googleapis_com_activity",
    description:
      "Admin Activity audit logs: every API call that changes configuration or metadata — IAM policy changes (SetIamPolicy), " +
      "service-account and key creation, VM and firewall changes, bucket IAM changes (storage.setIamPermissions). Who, from which IP, what.",
    fields: entry(AUDIT_RESOURCE_LABELS, [
      AUDIT_PAYLOAD,
      struct("operation", [s("id"), s("producer"), b("first"), b("last")]),
    ]),
  },
  {
    name: "cloudaudit_googleapis_com_data_access",
    description:
      "Data Access audit logs: reads of data and metadata — storage.objects.get/list on buckets, and calls authenticated with " +
      "service-account keys (authenticationInfo.serviceAccountKeyName). Who read what, from which IP.",
    fields: entry(AUDIT_RESOURCE_LABELS, [AUDIT_PAYLOAD]),
  },
  {
    name: "cloudaudit_googleapis_com_system_event",
    description:
      "System Event audit logs: changes made by Google systems rather than people — live migration, host maintenance, automatic restarts.",
    fields: entry(AUDIT_RESOURCE_LABELS, [AUDIT_PAYLOAD]),
  },
  {
    name: "cloudaudit_googleapis_com_policy",
    description:
      "Policy Denied audit logs: calls Google Cloud refused because a security policy forbade them — VPC Service Controls " +
      "violations (status.message names vpcServiceControlsUniqueIdentifier) and organization policy denials. Who was stopped, " +
      "from which IP, calling what.",
    fields: entry(AUDIT_RESOURCE_LABELS, [AUDIT_PAYLOAD]),
  },
  {
    name: "compute_googleapis_com_vpc_flows",
    description:
      "VPC Flow Logs: sampled connections of VM network interfaces — 5-tuple, bytes and packets per aggregation interval, VM names " +
      "and geo of external peers. Answers who talked to which IP and port, how much and how regularly. bytes_sent is a STRING: CAST it.",
    fields: entry(
      [s("project_id"), s("subnetwork_id"), s("subnetwork_name"), s("location")],
      [
        struct("jsonPayload", [
          struct("connection", [
            s("src_ip"),
            i("src_port"),
            s("dest_ip"),
            i("dest_port"),
            i("protocol", "IANA protocol number: 6 TCP, 17 UDP, 1 ICMP"),
          ]),
          s(
            "bytes_sent",
            "bytes in this interval, an int64 carried as STRING: CAST(jsonPayload.bytes_sent AS INT64)",
          ),
          s("packets_sent", "an int64 carried as STRING"),
          ts("start_time"),
          ts("end_time"),
          s("reporter", "SRC or DEST: which side's VM reported the flow"),
          i("rtt_msec"),
          struct(
            "src_instance",
            [s("project_id"), s("region"), s("vm_name"), s("zone")],
            "set when the source is a VM",
          ),
          struct(
            "dest_instance",
            [s("project_id"), s("region"), s("vm_name"), s("zone")],
            "set when the destination is a VM",
          ),
          struct("src_vpc", [s("project_id"), s("vpc_name"), s("subnetwork_name")]),
          struct("dest_vpc", [s("project_id"), s("vpc_name"), s("subnetwork_name")]),
          struct(
            "src_location",
            [s("continent"), s("country"), s("region"), s("city"), i("asn")],
            "geo of an external source",
          ),
          struct(
            "dest_location",
            [s("continent"), s("country"), s("region"), s("city"), i("asn")],
            "geo of an external destination",
          ),
        ]),
      ],
    ),
  },
  {
    name: "dns_googleapis_com_dns_queries",
    description:
      "Cloud DNS query logs: names VMs resolved through the VPC resolver, the answer (rdata) and response code, and which VM asked. " +
      "queryName ends with a dot.",
    fields: entry(
      [s("project_id"), s("location"), s("source_type"), s("target_name"), s("target_type")],
      [
        struct("jsonPayload", [
          {
            ...s("queryName", "the name asked for, with a trailing dot, e.g. example.com."),
            indicator: "domain",
          },
          s("queryType", "A, AAAA, CNAME, TXT, …"),
          s("responseCode", "NOERROR, NXDOMAIN, SERVFAIL, …"),
          s("rdata", "the answer records as text (e.g. 'pool.example.com.\t300\tIN\ta\t203.0.113.7')"),
          s("sourceIP", "the client's IP"),
          s("sourceNetwork"),
          s("vmInstanceName", "name of the VM that asked"),
          i("vmInstanceId"),
          s("vmProjectId"),
          s("vmZoneName"),
          b("authAnswer"),
          s("protocol", "UDP or TCP"),
          s("destinationIP"),
          i("serverLatency"),
        ]),
      ],
    ),
  },
  {
    name: "syslog",
    description:
      "Guest OS syslog of VMs, shipped by the logging agent: textPayload is the raw line — sshd logins (Accepted/Failed password, " +
      "Invalid user), sudo, cron, systemd, kernel and application messages. The VM name is labels.compute_googleapis_com_resource_name.",
    fields: entry(
      [s("project_id"), s("instance_id"), s("zone")],
      [
        s("textPayload", "the raw syslog line"),
        struct("labels", [s("compute_googleapis_com_resource_name", "VM name")]),
      ],
    ),
  },
  {
    name: "requests",
    description:
      "External Application Load Balancer request logs (log id `requests`): one row per HTTP request at the front end — client IP, " +
      "URL, user agent, status, the backend service, and the Cloud Armor policy that allowed or denied it " +
      "(jsonPayload.enforcedSecurityPolicy, jsonPayload.statusDetails such as denied_by_security_policy). Answers whether a probe " +
      "reached a backend or was refused at the edge.",
    fields: entry(
      [
        s("project_id"),
        s("backend_service_name", "the backend service the URL map chose"),
        s("forwarding_rule_name"),
        s("target_proxy_name"),
        s("url_map_name"),
        s("zone"),
      ],
      [
        struct("httpRequest", [
          s("requestMethod"),
          s("requestUrl"),
          s("requestSize"),
          i("status", "HTTP status returned to the client (403 when Cloud Armor denied the request)"),
          s("responseSize"),
          s("userAgent"),
          s("remoteIp", "the client's IP"),
          s("serverIp", "the backend that served the request, when one did"),
          s("referer"),
          s("latency"),
        ]),
        struct("jsonPayload", [
          s(
            "statusDetails",
            "why the load balancer answered as it did, e.g. response_sent_by_backend, denied_by_security_policy",
          ),
          s("backendTargetProjectNumber"),
          struct("enforcedSecurityPolicy", [
            s("name", "the Cloud Armor policy"),
            i("priority", "the rule that matched"),
            s("configuredAction", "ALLOW, DENY, THROTTLE, …"),
            s("outcome", "ACCEPT or DENY"),
            {
              name: "preconfiguredExprIds",
              type: "STRING",
              repeated: true,
              description: "WAF signatures that matched",
            },
          ]),
        ]),
      ],
    ),
  },
];

export function logTableDef(
  name: string,
  logTables: readonly LogTableDef[] = LOG_TABLES,
): LogTableDef | undefined {
  return logTables.find((t) => t.name === name);
}

/** Column descriptions by dotted path, for describeTable in every warehouse adapter. */
export function fieldDescriptions(
  fields: readonly FieldDef[],
  prefix = "",
  out = new Map<string, string>(),
): Map<string, string> {
  for (const f of fields) {
    const path = prefix ? `${prefix}.${f.name}` : f.name;
    if (f.description) out.set(path, f.description);
    if (typeof f.type !== "string") fieldDescriptions(f.type, path, out);
  }
  return out;
}
