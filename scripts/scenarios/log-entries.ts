import type { Project, Vm } from "./environment.js";
import type { Rng } from "./prng.js";

/**
 * Builders for rows in the shape a Cloud Logging → BigQuery sink writes them (one JSON
 * object per row, nested records as objects, protoPayload as protopayload_auditlog with
 * request/response/metadata as JSON strings). Field order is fixed so output is stable.
 */
export type Row = Record<string, unknown> & { timestamp: string };

export const TABLES = {
  activity: "cloudaudit_googleapis_com_activity",
  dataAccess: "cloudaudit_googleapis_com_data_access",
  systemEvent: "cloudaudit_googleapis_com_system_event",
  policy: "cloudaudit_googleapis_com_policy",
  vpcFlows: "compute_googleapis_com_vpc_flows",
  dns: "dns_googleapis_com_dns_queries",
  syslog: "syslog",
  requests: "requests",
} as const;
export type TableName = (typeof TABLES)[keyof typeof TABLES];

export function iso(ms: number): string {
  return new Date(Math.round(ms)).toISOString();
}

function insertId(rng: Rng): string {
  return rng.hex(12);
}

function stamps(rng: Rng, time: number): { timestamp: string; receiveTimestamp: string } {
  return { timestamp: iso(time), receiveTimestamp: iso(time + rng.int(40, 1500)) };
}

const AUDIT_LOG = {
  [TABLES.activity]: "cloudaudit.googleapis.com%2Factivity",
  [TABLES.dataAccess]: "cloudaudit.googleapis.com%2Fdata_access",
  [TABLES.systemEvent]: "cloudaudit.googleapis.com%2Fsystem_event",
  [TABLES.policy]: "cloudaudit.googleapis.com%2Fpolicy",
} as const;

export interface AuditSpec {
  table: typeof TABLES.activity | typeof TABLES.dataAccess | typeof TABLES.systemEvent | typeof TABLES.policy;
  project: Project;
  time: number;
  serviceName: string;
  methodName: string;
  resourceName: string;
  resource: { type: string; labels: Record<string, string> };
  principal?: string;
  callerIp?: string;
  userAgent?: string;
  keyName?: string;
  status?: { code: number; message: string };
  permission?: string;
  request?: Record<string, unknown>;
  response?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  bindingDeltas?: Array<{ action: "ADD" | "REMOVE"; role: string; member: string }>;
  /** What a SetIamPolicy did to the audit configuration (policyDelta.auditConfigDeltas). */
  auditConfigDeltas?: Array<{ action: "ADD" | "REMOVE"; service: string; logType: string }>;
  severity?: string;
  operation?: { id: string; producer: string };
  /** Access Context Manager levels the request satisfied (requestMetadata.requestAttributes.auth). */
  accessLevels?: string[];
  /** The project the entry's logName and resource belong to, when not `project` (organization-level logs). */
  logName?: string;
}

export function auditEntry(rng: Rng, spec: AuditSpec): Row {
  const denied = spec.status !== undefined && spec.status.code !== 0;
  return {
    logName: spec.logName ?? `projects/${spec.project.id}/logs/${AUDIT_LOG[spec.table]}`,
    resource: { type: spec.resource.type, labels: { project_id: spec.project.id, ...spec.resource.labels } },
    ...stamps(rng, spec.time),
    severity: spec.severity ?? (denied ? "ERROR" : spec.table === TABLES.activity ? "NOTICE" : "INFO"),
    insertId: insertId(rng),
    protopayload_auditlog: {
      serviceName: spec.serviceName,
      methodName: spec.methodName,
      resourceName: spec.resourceName,
      status: spec.status ?? null,
      authenticationInfo: spec.principal
        ? { principalEmail: spec.principal, ...(spec.keyName ? { serviceAccountKeyName: spec.keyName } : {}) }
        : null,
      authorizationInfo: spec.permission
        ? [{ resource: spec.resourceName, permission: spec.permission, granted: !denied }]
        : [],
      requestMetadata: spec.callerIp
        ? {
            callerIp: spec.callerIp,
            callerSuppliedUserAgent: spec.userAgent ?? "google-api-go-client/0.5",
            ...(spec.accessLevels
              ? { requestAttributes: { auth: { accessLevels: spec.accessLevels } } }
              : {}),
          }
        : null,
      requestJson: spec.request ? JSON.stringify(spec.request) : null,
      responseJson: spec.response ? JSON.stringify(spec.response) : null,
      metadataJson: spec.metadata ? JSON.stringify(spec.metadata) : null,
      servicedata_v1_iam:
        spec.bindingDeltas || spec.auditConfigDeltas
          ? {
              policyDelta: {
                ...(spec.bindingDeltas ? { bindingDeltas: spec.bindingDeltas } : {}),
                ...(spec.auditConfigDeltas ? { auditConfigDeltas: spec.auditConfigDeltas } : {}),
              },
            }
          : null,
    },
    ...(spec.operation ? { operation: { ...spec.operation, first: true, last: true } } : {}),
  };
}

export interface FlowEnd {
  ip: string;
  port: number;
  vm?: Vm;
  location?: { continent: string; country: string; region?: string; city?: string; asn: number };
}

export function vpcFlow(
  rng: Rng,
  spec: {
    project: Project;
    time: number;
    reporter: "SRC" | "DEST";
    src: FlowEnd;
    dest: FlowEnd;
    protocol?: number;
    bytes: number;
    packets?: number;
  },
): Row {
  const reportingVm = spec.reporter === "SRC" ? spec.src.vm : spec.dest.vm;
  const protocol = spec.protocol ?? 6;
  const instance = (vm: Vm | undefined, project: Project) =>
    vm ? { project_id: project.id, region: vm.region, vm_name: vm.name, zone: vm.zone } : null;
  const vpc = (vm: Vm | undefined, project: Project) =>
    vm ? { project_id: project.id, vpc_name: "default", subnetwork_name: vm.subnet } : null;
  const packets = spec.packets ?? Math.max(1, Math.round(spec.bytes / rng.int(300, 1400)));
  return {
    logName: `projects/${spec.project.id}/logs/compute.googleapis.com%2Fvpc_flows`,
    resource: {
      type: "gce_subnetwork",
      labels: {
        project_id: spec.project.id,
        subnetwork_id: "7412093388154221871",
        subnetwork_name: reportingVm?.subnet ?? "default",
        location: reportingVm?.zone ?? "us-central1-a",
      },
    },
    ...stamps(rng, spec.time + rng.int(2000, 9000)),
    severity: "DEFAULT",
    insertId: insertId(rng),
    jsonPayload: {
      connection: {
        src_ip: spec.src.ip,
        src_port: spec.src.port,
        dest_ip: spec.dest.ip,
        dest_port: spec.dest.port,
        protocol,
      },
      bytes_sent: String(spec.bytes),
      packets_sent: String(packets),
      start_time: iso(spec.time - rng.int(1000, 5000)),
      end_time: iso(spec.time),
      reporter: spec.reporter,
      rtt_msec: protocol === 6 ? rng.int(1, 180) : null,
      src_instance: instance(spec.src.vm, spec.project),
      dest_instance: instance(spec.dest.vm, spec.project),
      src_vpc: vpc(spec.src.vm, spec.project),
      dest_vpc: vpc(spec.dest.vm, spec.project),
      src_location: spec.src.location ?? null,
      dest_location: spec.dest.location ?? null,
    },
  };
}

export function dnsQuery(
  rng: Rng,
  spec: {
    project: Project;
    time: number;
    vm: Vm;
    name: string;
    type?: string;
    responseCode?: string;
    answers?: string[];
    ttl?: number;
  },
): Row {
  const type = spec.type ?? "A";
  const fqdn = spec.name.endsWith(".") ? spec.name : `${spec.name}.`;
  const rdata = (spec.answers ?? [])
    .map((a) => `${fqdn}\t${spec.ttl ?? 300}\tIN\t${type.toLowerCase()}\t${a}`)
    .join("\n");
  return {
    logName: `projects/${spec.project.id}/logs/dns.googleapis.com%2Fdns_queries`,
    resource: {
      type: "dns_query",
      labels: {
        project_id: spec.project.id,
        location: spec.vm.region,
        source_type: "gce-vm",
        target_name: "",
        target_type: fqdn.endsWith(".internal.") ? "private-zone" : "external",
      },
    },
    ...stamps(rng, spec.time),
    severity: "INFO",
    insertId: insertId(rng),
    jsonPayload: {
      queryName: fqdn,
      queryType: type,
      responseCode: spec.responseCode ?? "NOERROR",
      rdata: rdata || null,
      sourceIP: spec.vm.ip,
      sourceNetwork: "default",
      vmInstanceName: spec.vm.name,
      vmInstanceId: Number(spec.vm.id),
      vmProjectId: spec.project.id,
      vmZoneName: spec.vm.zone,
      authAnswer: false,
      protocol: "UDP",
      destinationIP: "169.254.169.254",
      serverLatency: rng.int(0, 40),
    },
  };
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function syslogStamp(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, " ")} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

export function syslogLine(
  rng: Rng,
  spec: { project: Project; time: number; vm: Vm; program: string; pid?: number; message: string },
): Row {
  const tag = spec.pid === undefined ? spec.program : `${spec.program}[${spec.pid}]`;
  return {
    logName: `projects/${spec.project.id}/logs/syslog`,
    resource: {
      type: "gce_instance",
      labels: { project_id: spec.project.id, instance_id: spec.vm.id, zone: spec.vm.zone },
    },
    ...stamps(rng, spec.time),
    severity: "DEFAULT",
    insertId: insertId(rng),
    textPayload: `${syslogStamp(spec.time)} ${spec.vm.name} ${tag}: ${spec.message}`,
    labels: { compute_googleapis_com_resource_name: spec.vm.name },
  };
}

/**
 * An external Application Load Balancer request log entry (log id `requests`, resource
 * http_load_balancer), with the Cloud Armor verdict when a security policy matched.
 */
export function lbRequest(
  rng: Rng,
  spec: {
    project: Project;
    time: number;
    backendService: string;
    forwardingRule: string;
    urlMap: string;
    method?: string;
    url: string;
    status: number;
    remoteIp: string;
    userAgent: string;
    serverIp?: string;
    policy?: { name: string; priority: number; action: "ALLOW" | "DENY"; exprIds?: string[] };
  },
): Row {
  const denied = spec.policy?.action === "DENY";
  return {
    logName: `projects/${spec.project.id}/logs/requests`,
    resource: {
      type: "http_load_balancer",
      labels: {
        project_id: spec.project.id,
        backend_service_name: spec.backendService,
        forwarding_rule_name: spec.forwardingRule,
        target_proxy_name: `${spec.forwardingRule}-proxy`,
        url_map_name: spec.urlMap,
        zone: "global",
      },
    },
    ...stamps(rng, spec.time),
    severity: spec.status >= 500 ? "ERROR" : spec.status >= 400 ? "WARNING" : "INFO",
    insertId: insertId(rng),
    httpRequest: {
      requestMethod: spec.method ?? "GET",
      requestUrl: spec.url,
      requestSize: String(rng.int(180, 900)),
      status: spec.status,
      responseSize: String(denied ? rng.int(120, 300) : rng.int(800, 60_000)),
      userAgent: spec.userAgent,
      remoteIp: spec.remoteIp,
      ...(spec.serverIp ? { serverIp: spec.serverIp } : {}),
      latency: `${(rng.int(2, 400) / 1000).toFixed(6)}s`,
    },
    jsonPayload: {
      "@type": "type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry",
      statusDetails: denied ? "denied_by_security_policy" : "response_sent_by_backend",
      backendTargetProjectNumber: `projects/${spec.project.number}`,
      ...(spec.policy
        ? {
            enforcedSecurityPolicy: {
              name: spec.policy.name,
              priority: spec.policy.priority,
              configuredAction: spec.policy.action,
              outcome: spec.policy.action === "DENY" ? "DENY" : "ACCEPT",
              ...(spec.policy.exprIds ? { preconfiguredExprIds: spec.policy.exprIds } : {}),
            },
          }
        : {}),
    },
  };
}
