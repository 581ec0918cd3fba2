import { isIpv4, isPublicIp } from "../net.js";
import {
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
  DnsEvidence,
  Evidence,
  FlowEvidence,
  HostLineEvidence,
  ObjectReadEvidence,
} from "./types.js";

const F = {
  srcIp: ["src_ip", "source_ip", "srcIp", "sourceIp", "client_ip", "connection.src_ip"],
  destIp: ["dest_ip", "dst_ip", "destination_ip", "destIp", "destinationIp", "connection.dest_ip"],
  remoteIp: ["remote_ip", "remoteIp", "peer_ip", "external_ip", "pool_ip"],
  destPort: [
    "dest_port",
    "dst_port",
    "destination_port",
    "destPort",
    "destinationPort",
    "port",
    "remote_port",
  ],
  bytes: ["bytes", "bytes_sent", "total_bytes", "sum_bytes", "bytesSent", "bytes_total", "tx_bytes"],
  packets: ["packets", "packets_sent", "total_packets", "packetsSent"],
  vm: [
    "src_instance.vm_name",
    "vm_name",
    "instance",
    "instance_name",
    "vmInstanceName",
    "compute.googleapis.com/resource_name",
  ],
  query: ["query_name", "queryName", "qname", "domain", "query"],
  dnsSource: ["source_ip", "sourceIP", "sourceIp", "src_ip", "vmInstanceName", "vm_name", "client", "source"],
  answers: ["rdata", "answers", "answer", "resolved_ips", "response_data"],
  rcode: ["response_code", "responseCode", "rcode"],
  text: ["textPayload", "message", "text_payload", "line", "msg", "jsonPayload.message"],
  method: ["methodName", "method_name", "method"],
  principal: ["principalEmail", "principal_email", "principal", "caller", "actor", "granter"],
  callerIp: ["callerIp", "caller_ip"],
  userAgent: ["callerSuppliedUserAgent", "user_agent", "userAgent"],
  resource: ["resourceName", "resource_name", "object_name", "object"],
  outcome: ["outcome", "result", "status", "auth_result", "event_type", "action"],
  user: ["user", "username", "user_name", "target_user", "account"],
  host: ["host", "hostname", "instance", "vm_name", "compute.googleapis.com/resource_name"],
  member: ["member", "members", "grantee", "granted_member"],
  role: ["role", "granted_role"],
  bindingAction: ["binding_action", "delta_action", "change", "action"],
  justification: [
    "justification",
    "reason",
    "ticket",
    "change_ticket",
    "changeTicket",
    "description",
    "labels.change",
    "labels.ticket",
  ],
  statusCode: ["status.code", "status_code", "grpc_status"],
};

function ip(value: string | undefined): string | undefined {
  return value && (isIpv4(value) || /^[0-9a-f:]+$/i.test(value)) ? value : undefined;
}

/** An sshd (or Windows logon) line → outcome, user, source. */
// Only "Failed … for" lines count: sshd also logs "Invalid user" and PAM lines for the same attempt.
const SSH_FAILED =
  /Failed (?:password|publickey|keyboard-interactive\/pam|none) for (?:invalid user )?(\S+) from (\d{1,3}(?:\.\d{1,3}){3})/i;
const SSH_ACCEPTED =
  /Accepted (?:password|publickey|keyboard-interactive\/pam) for (\S+) from (\d{1,3}(?:\.\d{1,3}){3})/i;
const TICKET = /\b(?:CHG|CR|RFC|INC|SR)[-_ ]?\d{3,}\b|\b[A-Z][A-Z0-9]{1,9}-\d{2,}\b/g;

function authFromText(text: string, row: Flat): AuthEvidence | undefined {
  const span = spanOf(row);
  const host = pickString(row, F.host);
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
  if (failed) {
    return {
      kind: "auth",
      outcome: "failed",
      user: failed[1],
      sourceIp: failed[2],
      ...span,
      ...(host ? { host } : {}),
    };
  }
  return undefined;
}

/** Aggregated auth rows from a runbook: {outcome|status: failed/accepted, source_ip, user, count}. */
function authFromColumns(row: Flat): AuthEvidence | undefined {
  const outcome = pickString(row, F.outcome)?.toLowerCase() ?? "";
  const isFailed = /fail|invalid|denied|reject|4625/.test(outcome);
  const isAccepted = /accept|success|succeed|4624/.test(outcome);
  if (!isFailed && !isAccepted) return undefined;
  const sourceIp = ip(pickString(row, [...F.srcIp, ...F.remoteIp, "rhost", "ip"]));
  const user = pickString(row, F.user);
  const host = pickString(row, F.host);
  return {
    kind: "auth",
    outcome: isAccepted && !isFailed ? "accepted" : "failed",
    ...(sourceIp ? { sourceIp } : {}),
    ...(user ? { user } : {}),
    ...(host ? { host } : {}),
    ...spanOf(row),
  };
}

/** The remote end is the public one: the destination for egress, the source for inbound attacks. */
function flowFrom(row: Flat): FlowEvidence | undefined {
  const src = ip(pickString(row, F.srcIp));
  const dest = ip(pickString(row, F.destIp));
  const remoteField = ip(pickString(row, F.remoteIp));
  const flowish = hasAny(row, [...F.bytes, ...F.packets, ...F.destPort]);
  if (!remoteField && !(src && dest) && !(dest && flowish)) return undefined;
  const remote =
    remoteField ?? (dest && isPublicIp(dest) ? dest : src && isPublicIp(src) ? src : (dest ?? src));
  if (!remote) return undefined;
  const local = remote === dest ? src : remote === src ? dest : src;
  const port = pickNumber(row, F.destPort);
  const bytes = pickNumber(row, F.bytes);
  const packets = pickNumber(row, F.packets);
  const instance = pickString(row, F.vm);
  return {
    kind: "flow",
    remoteIp: remote,
    ...(local ? { localIp: local } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(bytes !== undefined ? { bytes } : {}),
    ...(packets !== undefined ? { packets } : {}),
    ...(instance ? { instance } : {}),
    ...spanOf(row),
  };
}

function dnsFrom(row: Flat): DnsEvidence | undefined {
  const query = pickString(row, F.query);
  if (!query || !/[a-z0-9-]+\.[a-z]{2,}\.?$/i.test(query)) return undefined;
  if (!hasAny(row, [...F.answers, ...F.rcode, "queryType", "query_type", ...F.dnsSource])) return undefined;
  const source = pickString(row, F.dnsSource);
  const rcode = pickString(row, F.rcode);
  const answers = pickStrings(row, F.answers)
    .flatMap((a) => a.split(/\s+/))
    .filter((a) => isIpv4(a) || /^[a-z0-9.-]+\.$/i.test(a));
  return {
    kind: "dns",
    query: query.replace(/\.$/, "").toLowerCase(),
    answers: [...new Set(answers)],
    ...(source ? { source } : {}),
    ...(rcode ? { responseCode: rcode } : {}),
    ...spanOf(row),
  };
}

function bindingsOf(row: Flat): AuditEvidence["bindings"] {
  const deltas = pickArray(row, ["bindingDeltas", "binding_deltas"]) ?? [];
  const out: AuditEvidence["bindings"] = [];
  for (const d of deltas) {
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
    for (const m of member.split(/[,\s]+/).filter(Boolean))
      out.push({ action: action === "REMOVE" ? "REMOVE" : "ADD", role, member: m });
  }
  return out;
}

function auditFrom(row: Flat): AuditEvidence | ObjectReadEvidence | undefined {
  const method = pickString(row, F.method);
  if (!method) return undefined;
  const principal = pickString(row, F.principal);
  const callerIp = ip(pickString(row, F.callerIp));
  const resource = pickString(row, F.resource);
  const span = spanOf(row);
  if (
    /objects\.(get|list)|GetObject|ReadObject|storage\.objects/i.test(method) &&
    !/setIamPolicy|acl/i.test(method)
  ) {
    const object = resource?.match(/objects\/(.+)$/)?.[1] ?? pickString(row, ["object", "object_name"]);
    const bucket =
      resource?.match(/buckets\/([^/]+)/)?.[1] ??
      pickString(row, ["bucket", "bucket_name", "resource.labels.bucket_name"]);
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
  const justification = [...row.entries()]
    .filter(([k]) => /justification|reason|ticket|change|label/i.test(k))
    .map(([, v]) => (typeof v === "string" ? v : ""))
    .join(" ");
  const statusCode = pickNumber(row, F.statusCode);
  return {
    kind: "audit",
    method,
    bindings: bindingsOf(row),
    tickets: [...new Set(justification.match(TICKET) ?? [])].slice(0, 5),
    ...(principal ? { principal } : {}),
    ...(callerIp ? { callerIp } : {}),
    ...(userAgent ? { userAgent } : {}),
    ...(resource ? { resource } : {}),
    ...(statusCode !== undefined && statusCode !== 0 ? { failed: true } : {}),
    ...span,
  };
}

function hostLineFrom(row: Flat): HostLineEvidence | undefined {
  const text = pickString(row, F.text);
  if (!text) return undefined;
  const host = pickString(row, F.host);
  return { kind: "host_line", text: text.slice(0, 300), ...(host ? { host } : {}), ...spanOf(row) };
}

/**
 * Decides what one row is from the fields it has. Order matters: a flow row may carry a
 * message column, an audit row may carry a caller IP, so the most specific shape wins.
 */
export function classifyRow(raw: Record<string, unknown>): Evidence | undefined {
  const row = flatten(raw);
  const text = pickString(row, F.text);
  const fromText = text ? authFromText(text, row) : undefined;
  if (fromText) return fromText;
  const audit = auditFrom(row);
  if (audit) return audit;
  const dns = dnsFrom(row);
  if (dns) return dns;
  const auth = authFromColumns(row);
  if (auth) return auth;
  const flow = flowFrom(row);
  if (flow) return flow;
  if (pick(row, F.text) !== undefined) return hostLineFrom(row);
  return undefined;
}
