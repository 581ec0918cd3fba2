import { identifiersOf } from "../domain/log-identifiers.js";
import type { Intent, IntentKind, IntentParams } from "./intents.js";
import { lookBackStart, type Subject } from "./subject.js";
import type { TimeWindow } from "./time-window.js";

function opt(key: keyof IntentParams, value: string | readonly string[] | undefined): IntentParams {
  if (value === undefined) return {};
  const values = typeof value === "string" ? [value] : [...value];
  return values.length > 0 ? { [key]: values } : {};
}

/** An intent of any kind, filled from the finding alone: what the reflector uses for an alternative source. */
export function intentFromSubject(kind: IntentKind, subject: Subject, window: TimeWindow): Intent {
  const w: IntentParams = { start: [window.start], end: [window.end] };
  const params: Record<IntentKind, IntentParams> = {
    intel: {
      ...opt("ips", subject.publicIps),
      ...opt("domains", subject.domains),
      ...opt("hashes", subject.hashes),
    },
    flows: {
      ...opt("ips", subject.remoteIps),
      ...opt("instance", subject.instance),
      ...opt("ports", subject.ports.map(String)),
      ...w,
    },
    egress: { ...opt("instance", subject.instance), ...w },
    ingress: { ...opt("instance", subject.instance), ...w },
    dns: { ...opt("domains", subject.domains), ...opt("instance", subject.instance), ...w },
    ssh_auth: { ...opt("instance", subject.instance), ...opt("ips", subject.remoteIps), ...w },
    host_logs: {
      ...opt("instance", subject.instance),
      ...opt("terms", [...subject.processNames, ...subject.domains, ...subject.remoteIps].slice(0, 8)),
      ...w,
    },
    iam_changes: {
      ...opt("project", subject.project),
      ...opt(
        "member",
        subject.granted.map((g) => g.member),
      ),
      ...w,
    },
    principal_activity: { ...opt("principal", subject.principal ?? subject.granted[0]?.member), ...w },
    caller_activity: { ...opt("ips", subject.callerIp ?? subject.publicIps), ...w },
    resource_activity: {
      resource: [subject.auditResource],
      ...opt("project", subject.project),
      ...w,
    },
    bucket_access: { ...opt("bucket", subject.bucket), ...w },
    bucket_policy: {
      ...opt("bucket", subject.bucket),
      ...opt("project", subject.project),
      ...w,
    },
    principal_history: {
      ...opt("principal", subject.principal),
      recent: [window.start],
      start: [lookBackStart(window.start)],
      end: [window.end],
    },
    denied_allowed: { ...w },
    logging_changes: { ...w },
    lb_requests: {
      ...opt("ips", subject.iocIps),
      ...(subject.iocIps.length === 0 ? opt("backend", identifiersOf(subject.ids, "backend_service")) : {}),
      ...w,
    },
  };
  return { kind, params: params[kind] };
}

/** Whether an intent has the values its query needs (an alternative without them is pointless). */
export function intentIsUsable(intent: Intent): boolean {
  const p = intent.params;
  switch (intent.kind) {
    case "intel":
      return Boolean(p.ips?.length || p.domains?.length || p.hashes?.length);
    case "flows":
      return Boolean(p.ips?.length || p.instance?.length);
    case "dns":
      return Boolean(p.domains?.length || p.instance?.length);
    case "principal_activity":
      return Boolean(p.principal?.length);
    case "caller_activity":
      return Boolean(p.ips?.length);
    case "egress":
    case "ingress":
    case "host_logs":
      return Boolean(p.instance?.length);
    case "ssh_auth":
      return Boolean(p.instance?.length || p.ips?.length);
    case "bucket_access":
    case "bucket_policy":
      return Boolean(p.bucket?.length);
    case "principal_history":
      return Boolean(p.principal?.length);
    case "lb_requests":
      return Boolean(p.ips?.length || p.backend?.length);
    default:
      return true;
  }
}
