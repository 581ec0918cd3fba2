import { isIpv4, isPublicIp } from "../net.js";
import {
  asTime,
  type Flat,
  flatten,
  hasAny,
  pick,
  pickArray,
  pickNumber,
  pickString,
  pickStrings,
  spanOf,
} from "./fields.js";
import type {
  AuditEvidence,
  AuthEvidence,
  CallScope,
  DeniedAllowedEvidence,
  DnsEvidence,
  Evidence,
  FlowEvidence,
  HistoryEvidence,
  HostLineEvidence,
  HttpRequestEvidence,
  ObjectReadEvidence,
} from "./types.js";

/** Column aliases: raw export paths, runbook column names and common spellings. */
const F = {
  srcIp: ["src_ip", "source_ip", "srcIp", "sourceIp", "client_ip", "connection.src_ip"],
  destIp: ["dest_ip", "dst_ip", "destination_ip", "destIp", "destinationIp", "connection.dest_ip"],
  remoteIp: ["remote_ip", "remoteIp", "peer_ip", "external_ip", "pool_ip"],
  localIp: ["vm_ip", "local_ip", "instance_ip"],
  destPort: [
    "dest_port",
    "dst_port",
    "destination_port",
    "destPort",
    "destinationPort",
    "remote_port",
    "port",
  ],
  bytes: ["bytes", "bytes_sent", "total_bytes", "sum_bytes", "bytesSent", "bytes_total", "tx_bytes"],
  packets: ["packets", "packets_sent", "total_packets", "packetsSent"],
  vm: ["src_instance.vm_name", "vm_name", "vm", "instance", "instance_name", "vmInstanceName"],
  query: ["query_name", "queryName", "qname", "domain"],
  dnsSource: [
    "vmInstanceName",
    "vm_instance",
    "vm",
    "vm_name",
    "source_ip",
    "sourceIP",
    "sourceIp",
    "client",
  ],
  answers: ["rdata", "answers", "answer", "sample_answer", "resolved_ips", "response_data"],
  rcode: ["response_code", "responseCode", "rcode"],
  text: ["textPayload", "message", "text_payload", "line", "msg"],
  method: ["methodName", "method_name", "method"],
  principal: ["principalEmail", "principal_email", "principal", "changed_by", "caller", "actor", "granter"],
  callerIp: ["callerIp", "caller_ip"],
  userAgent: ["callerSuppliedUserAgent", "user_agent", "userAgent"],
  resource: ["resourceName", "resource_name", "sample_resource", "sample_object", "object_name", "resource"],
  keyName: ["serviceAccountKeyName", "key_name"],
  outcome: ["outcome", "result", "auth_result", "event_type"],
  user: ["user", "username", "user_name", "target_user", "account"],
  host: ["host", "hostname", "vm", "vm_name", "instance", "compute_googleapis_com_resource_name"],
  member: ["member", "members", "grantee", "granted_member"],
  role: ["role", "granted_role"],
  bindingAction: ["action", "binding_action", "delta_action"],
  statusCode: ["status.code", "status_code"],
};

function ip(value: string | undefined): string | undefined {
  return value && (isIpv4(value) || /^[0-9a-f]*:[0-9a-f:]+$/i.test(value)) ? value : undefined;
}

// Only "Failed … for" lines count as attempts: sshd also logs "Invalid user" and PAM lines for the same attempt.
const SSH_FAILED =
  /Failed (?:password|publickey|keyboard-interactive\/pam|none) for (?:invalid user )?(\S+) from (\d{1,3}(?:\.\d{1,3}){3})/i;
const SSH_ACCEPTED =
  /Accepted (?:password|publickey|keyboard-interactive\/pam) for (\S+) from (\d{1,3}(?:\.\d{1,3}){3})/i;
const INVALID_USER = /Invalid user (\S+) from/i;
// A ticket is a whole token: not part of an address or name ("chg-40211.ops@gmail.com" is a grantee, not a change).
const STRICT_TICKET = /(?<![\w.@-])(?:CHG|CR|RFC|INC|SR|REQ|TICKET|JIRA)[-_ #]?\d{3,}(?![\w.@-])/gi;
const KEY_TICKET = /(?<![\w.@-])[A-Z][A-Z0-9]{1,9}-\d{2,}(?![\w.@-])/g;
/**
 * Fields where a person states why a change is made, or what the changed resource is for (a
 * firewall rule's or a key's description); the last segment of the key decides. A Kubernetes
 * rollout states it in the `kubernetes.io/change-cause` annotation
 * (https://kubernetes.io/docs/reference/labels-annotations-taints/#change-cause).
 */
const TICKET_FIELD =
  /(?:^|[./_-])(?:justification|reason|ticket|tickets|note|notes|description|change[-_]?(?:id|ticket|request|ref|cause)?|labels?)$/i;
/** "key":"value" pairs inside request/response JSON kept as strings (annotation keys carry a prefix/). */
const JSON_PAIR = /"([A-Za-z0-9_./-]{1,128})"\s*:\s*"((?:[^"\\]|\\.){0,500})"/g;
const WEBSITE = /mainPageSuffix|notFoundPage|"website"/;
const PUBLIC_LABEL = /"([a-z0-9_-]{1,63})"\s*:\s*"([a-z0-9_-]*(?:public|website|static|cdn)[a-z0-9_-]*)"/gi;

/** Request JSON that sets a website up or labels the resource as public by design. */
function intentHintsOf(row: Flat): string[] {
  const hints: string[] = [];
  for (const value of row.values()) {
    if (typeof value !== "string") continue;
    if (/mainPageSuffix/.test(value)) hints.push("website configuration (mainPageSuffix)");
    for (const m of value.matchAll(PUBLIC_LABEL)) hints.push(`label ${m[1]}=${m[2]}`);
  }
  return [...new Set(hints)].slice(0, 5);
}

function authFromText(text: string, row: Flat, scope: CallScope): AuthEvidence | undefined {
  const span = spanOf(row);
  const host = pickString(row, F.host) ?? scope.instance;
  const accepted = SSH_ACCEPTED.exec(text);
  if (accepted) {
    return {
      kind: "auth",
      outcome: "accepted",
      user: accepted[1],
      sourceIp: accepted[2],
      ...span,
      ...(host ? { host } : {}),
    };
  }
  const failed = SSH_FAILED.exec(text);
  if (failed)
    return {
      kind: "auth",
      outcome: "failed",
      user: failed[1],
      sourceIp: failed[2],
      ...span,
      ...(host ? { host } : {}),
    };
  return undefined;
}

/** Aggregated auth rows from a runbook: {outcome: accepted | failed_password | invalid_user, source_ip, lines}. */
function authFromColumns(row: Flat, scope: CallScope): AuthEvidence | undefined {
  const outcome = pickString(row, F.outcome)?.toLowerCase() ?? "";
  const invalidUser = /invalid/.test(outcome);
  const isFailed = /fail|invalid|denied|reject|4625/.test(outcome);
  const isAccepted = /accept|success|succeed|4624/.test(outcome);
  if (isFailed === isAccepted) return undefined;
  const sourceIp = ip(pickString(row, [...F.srcIp, ...F.remoteIp, "rhost", "ip"])) ?? scope.ip;
  // Runbooks aggregate per source and outcome; the sample line still names the account.
  const sample = pickString(row, ["sample_line", "sample"]) ?? "";
  const user =
    pickString(row, F.user) ??
    (SSH_ACCEPTED.exec(sample) ?? SSH_FAILED.exec(sample) ?? INVALID_USER.exec(sample))?.[1];
  const host = pickString(row, F.host) ?? scope.instance;
  return {
    kind: "auth",
    outcome: isAccepted ? "accepted" : "failed",
    ...(invalidUser ? { invalidUser } : {}),
    ...(sourceIp ? { sourceIp } : {}),
    ...(user ? { user } : {}),
    ...(host ? { host } : {}),
    ...spanOf(row),
  };
}

/** The remote end is the public one: the destination for egress, the source for inbound attacks. */
function flowFrom(row: Flat, scope: CallScope): FlowEvidence | undefined {
  const src = ip(pickString(row, F.srcIp));
  const dest = ip(pickString(row, F.destIp));
  const remoteField = ip(pickString(row, F.remoteIp));
  const flowish = hasAny(row, [...F.bytes, ...F.packets, ...F.destPort, "flows"]);
  const scoped = scope.ip && flowish ? scope.ip : undefined;
  if (!remoteField && !scoped && !(src && dest) && !((dest || src) && flowish)) return undefined;
  const guess = dest && isPublicIp(dest) ? dest : src && isPublicIp(src) ? src : (dest ?? src);
  const remote = remoteField ?? scoped ?? guess;
  if (!remote) return undefined;
  const local =
    ip(pickString(row, F.localIp)) ?? (remote === dest ? src : remote === src ? dest : (src ?? dest));
  const port = pickNumber(row, F.destPort);
  const bytes = pickNumber(row, F.bytes);
  const packets = pickNumber(row, F.packets);
  const instance = pickString(row, F.vm) ?? scope.instance;
  const sessions = pickNumber(row, ["sessions", "session_count", "connections_distinct"]);
  const protocol = pickNumber(row, ["protocol", "proto", "connection.protocol"]);
  return {
    kind: "flow",
    ...(sessions !== undefined ? { sessions } : {}),
    ...(protocol !== undefined ? { protocol } : {}),
    remoteIp: remote,
    ...(local && local !== remote ? { localIp: local } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(bytes !== undefined ? { bytes } : {}),
    ...(packets !== undefined ? { packets } : {}),
    ...(instance ? { instance } : {}),
    ...spanOf(row),
  };
}

function dnsFrom(row: Flat, scope: CallScope): DnsEvidence | undefined {
  const query = pickString(row, F.query);
  if (!query || !/[a-z0-9-]+\.[a-z]{2,}\.?$/i.test(query)) return undefined;
  if (!hasAny(row, [...F.answers, ...F.rcode, "queryType", "query_type", ...F.dnsSource])) return undefined;
  const name = query.replace(/\.$/, "").toLowerCase();
  const source = pickString(row, F.dnsSource) ?? scope.instance;
  const rcode = pickString(row, F.rcode);
  // rdata reads like "name.\t300\tIN\ta\t203.0.113.7": keep the addresses and CNAME targets.
  const answers = pickStrings(row, F.answers)
    .flatMap((a) => a.split(/\s+/))
    .filter((a) => isIpv4(a) || (/^[a-z0-9.-]+\.$/i.test(a) && a.replace(/\.$/, "").toLowerCase() !== name));
  return {
    kind: "dns",
    query: name,
    answers: [...new Set(answers)],
    ...(source ? { source } : {}),
    ...(rcode ? { responseCode: rcode } : {}),
    ...spanOf(row),
  };
}

function bindingsOf(row: Flat): AuditEvidence["bindings"] {
  const out: AuditEvidence["bindings"] = [];
  for (const d of pickArray(row, ["bindingDeltas", "binding_deltas"]) ?? []) {
    const flat = flatten(d);
    const member = pickString(flat, ["member"]);
    const role = pickString(flat, ["role"]);
    const action = pickString(flat, ["action"])?.toUpperCase();
    if (member && role) out.push({ action: action === "REMOVE" ? "REMOVE" : "ADD", role, member });
  }
  const member = pickString(row, F.member);
  const role = pickString(row, F.role);
  if (out.length === 0 && member && role) {
    const action = pickString(row, F.bindingAction)?.toUpperCase();
    for (const m of member.split(/[,\s]+/).filter(Boolean)) {
      out.push({ action: action === "REMOVE" ? "REMOVE" : "ADD", role, member: m });
    }
  }
  return out;
}

/**
 * Ticket references, only where a person states why a change is made: fields (or JSON keys
 * inside a request string) named justification, reason, ticket, note, change… Any other field
 * — a member, a principal, a resource name — is chosen by whoever makes the change, so a
 * ticket-shaped word there approves nothing.
 */
function ticketsOf(row: Flat): string[] {
  const found: string[] = [];
  const read = (key: string, value: string) => {
    if (!TICKET_FIELD.test(key.split(".").at(-1) ?? key)) return;
    found.push(...(value.match(STRICT_TICKET) ?? []), ...(value.match(KEY_TICKET) ?? []));
  };
  for (const [key, value] of row) {
    if (typeof value !== "string") continue;
    read(key, value);
    for (const pair of value.matchAll(JSON_PAIR)) read(pair[1] ?? "", pair[2] ?? "");
  }
  return [...new Set(found)].slice(0, 5);
}

function auditFrom(row: Flat, scope: CallScope): AuditEvidence | ObjectReadEvidence | undefined {
  const method = pickString(row, F.method);
  if (!method) return undefined;
  const principal = pickString(row, F.principal) ?? scope.principal;
  const callerIp = ip(pickString(row, F.callerIp)) ?? (scope.ip && !scope.principal ? scope.ip : undefined);
  const resource = pickString(row, F.resource);
  const span = spanOf(row);
  if (/objects\.(get|list)|GetObject|ReadObject/i.test(method)) {
    const object = resource?.match(/objects\/(.+)$/)?.[1] ?? pickString(row, ["object", "object_name"]);
    const bucket =
      resource?.match(/buckets\/([^/]+)/)?.[1] ?? pickString(row, ["bucket", "bucket_name"]) ?? scope.bucket;
    return {
      kind: "object_read",
      method,
      ...(bucket ? { bucket } : {}),
      ...(object ? { object } : {}),
      ...(principal ? { principal } : {}),
      ...(callerIp ? { callerIp } : {}),
      ...span,
    };
  }
  const userAgent = pickString(row, F.userAgent);
  const keyName = pickString(row, F.keyName);
  const statusCode = pickNumber(row, F.statusCode);
  const website = [...row.values()].some((v) => typeof v === "string" && WEBSITE.test(v));
  // Runbooks count denied calls per group; all of them denied means the call never took effect.
  const deniedCount = pickNumber(row, ["failed", "denied"]);
  const allDenied = deniedCount !== undefined && deniedCount > 0 && deniedCount >= span.count;
  const loggedService = pickString(row, ["logged_service", "auditConfigDeltas.service"]);
  const logType = pickString(row, ["log_type", "auditConfigDeltas.logType"]);
  const logging =
    loggedService || logType
      ? [[pickString(row, F.bindingAction), loggedService, logType].filter(Boolean).join(" ")]
      : /ConfigServiceV2\.(Create|Update|Delete)(Sink|Exclusion)/.test(method)
        ? [method.split(".").at(-1) ?? method]
        : [];
  return {
    kind: "audit",
    ...(logging.length > 0 ? { logging } : {}),
    method,
    bindings: bindingsOf(row),
    tickets: ticketsOf(row),
    intentHints: intentHintsOf(row),
    ...(principal ? { principal } : {}),
    ...(callerIp ? { callerIp } : {}),
    ...(userAgent ? { userAgent } : {}),
    ...(resource ? { resource } : {}),
    ...(keyName ? { keyName } : {}),
    ...(website ? { website } : {}),
    ...((statusCode !== undefined && statusCode !== 0) || allDenied ? { failed: true } : {}),
    ...span,
  };
}

function hostLineFrom(row: Flat, scope: CallScope): HostLineEvidence | undefined {
  const text = pickString(row, F.text);
  if (!text) return undefined;
  const host = pickString(row, F.host) ?? scope.instance;
  return { kind: "host_line", text: text.slice(0, 300), ...(host ? { host } : {}), ...spanOf(row) };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** principal_history rows: calls before and inside the window per address, agent, level and method. */
function historyFrom(row: Flat, scope: CallScope): HistoryEvidence | undefined {
  const daysBefore = pickNumber(row, ["days_before", "daysBefore"]);
  const callsRecent = pickNumber(row, ["calls_recent", "callsRecent"]);
  if (daysBefore === undefined || callsRecent === undefined) return undefined;
  const levels = pickStrings(row, ["access_levels", "accessLevels"]).filter((l) => l.length > 0);
  return {
    kind: "history",
    accessLevels: [...new Set(levels)],
    callsBefore: pickNumber(row, ["calls_before", "callsBefore"]) ?? 0,
    daysBefore,
    callsRecent,
    ...optional("principal", pickString(row, F.principal) ?? scope.principal),
    ...optional("callerIp", pickString(row, F.callerIp)),
    ...optional("network", pickString(row, ["caller_network", "callerNetwork"])),
    ...optional("userAgent", pickString(row, F.userAgent)),
    ...optional("method", pickString(row, F.method)),
    ...spanOf(row),
    count:
      pickNumber(row, ["calls_before"]) !== undefined
        ? (pickNumber(row, ["calls_before"]) ?? 0) + callsRecent
        : 1,
  };
}

/** access_denied_then_allowed rows: denials and successes per principal, address and service. */
function deniedAllowedFrom(row: Flat): DeniedAllowedEvidence | undefined {
  const denied = pickNumber(row, ["denied", "denied_calls"]);
  const allowed = pickNumber(row, ["allowed", "allowed_calls"]);
  if (
    denied === undefined ||
    allowed === undefined ||
    !hasAny(row, ["last_denied", "first_allowed_after_denial"])
  )
    return undefined;
  return {
    kind: "denied_allowed",
    denied,
    allowed,
    ...optional("principal", pickString(row, F.principal)),
    ...optional("callerIp", pickString(row, F.callerIp)),
    ...optional("service", pickString(row, ["service", "service_name", "serviceName"])),
    ...optional("lastDenied", asTime(pick(row, ["last_denied"]))),
    ...optional("firstAllowedAfter", asTime(pick(row, ["first_allowed_after_denial"]))),
    ...optional("reason", pickString(row, ["denial_reason", "status_message"])?.slice(0, 200)),
    ...optional("deniedMethod", pickString(row, ["denied_method"])),
    ...optional("allowedMethod", pickString(row, ["allowed_method"])),
    ...spanOf(row),
    count: denied + allowed,
  };
}

/** Load balancer request rows (lb_requests_*): client, status and the Cloud Armor verdict. */
function httpRequestFrom(row: Flat, scope: CallScope): HttpRequestEvidence | undefined {
  const status = pickNumber(row, ["http_status", "httpRequest.status", "status"]);
  const isHttp =
    hasAny(row, ["http_status", "httpRequest.status", "status_details", "jsonPayload.statusDetails"]) ||
    hasAny(row, ["policy_outcome", "jsonPayload.enforcedSecurityPolicy.outcome"]);
  if (!isHttp || status === undefined) return undefined;
  return {
    kind: "http_request",
    wafRules: pickStrings(row, ["waf_rules", "jsonPayload.enforcedSecurityPolicy.preconfiguredExprIds"]),
    status,
    ...optional(
      "remoteIp",
      ip(pickString(row, ["remote_ip", "httpRequest.remoteIp", "client_ip"])) ?? scope.ip,
    ),
    ...optional("backend", pickString(row, ["backend_service", "resource.labels.backend_service_name"])),
    ...optional("statusDetails", pickString(row, ["status_details", "jsonPayload.statusDetails"])),
    ...optional("policy", pickString(row, ["security_policy", "jsonPayload.enforcedSecurityPolicy.name"])),
    ...optional("outcome", pickString(row, ["policy_outcome", "jsonPayload.enforcedSecurityPolicy.outcome"])),
    ...optional(
      "url",
      pickString(row, ["sample_url", "httpRequest.requestUrl", "request_url"])?.slice(0, 300),
    ),
    ...spanOf(row),
    ...(pickNumber(row, ["requests"]) !== undefined ? { count: pickNumber(row, ["requests"]) ?? 1 } : {}),
  };
}

/**
 * Decides what one row is from the fields it has. Order matters: a flow row may carry a
 * message column, an audit row may carry a caller IP, so the most specific shape wins.
 */
export function classifyRow(raw: Record<string, unknown>, scope: CallScope = {}): Evidence | undefined {
  const row = flatten(raw);
  const text = pickString(row, F.text);
  const fromText = text ? authFromText(text, row, scope) : undefined;
  if (fromText) return fromText;
  return (
    historyFrom(row, scope) ??
    deniedAllowedFrom(row) ??
    httpRequestFrom(row, scope) ??
    auditFrom(row, scope) ??
    dnsFrom(row, scope) ??
    authFromColumns(row, scope) ??
    flowFrom(row, scope) ??
    (text !== undefined ? hostLineFrom(row, scope) : undefined)
  );
}
