import type { Intent, IntentKind, IntentParams } from "./intents.js";
import type { Subject } from "./subject.js";
import type { TimeWindow } from "./time-window.js";

function opt(key: keyof IntentParams, value: string | readonly string[] | undefined): IntentParams {
  if (value === undefined) return {};
  const values = typeof value === "string" ? [value] : [...value];
  return values.length > 0 ? { [key]: values } : {};
}

/** An intent of any kind, filled from the finding alone: what the reflector uses for an alternative source. */
export function intentFromSubject(kind: IntentKind, s: Subject, window: TimeWindow): Intent {
  const w: IntentParams = { start: [window.start], end: [window.end] };
  const where = s.instance ?? s.resourceShort;
  const params: Record<IntentKind, IntentParams> = {
    intel: { ...opt("ips", s.publicIps), ...opt("domains", s.domains), ...opt("hashes", s.hashes) },
    flows: {
      ...opt("ips", s.remoteIps),
      ...opt("instance", s.instance),
      ...opt("ports", s.ports.map(String)),
      ...w,
    },
    egress: { instance: [where], ...w },
    dns: { ...opt("domains", s.domains), ...opt("instance", s.instance), ...w },
    ssh_auth: { instance: [where], ...opt("ips", s.remoteIps), ...w },
    host_logs: {
      instance: [where],
      ...opt("terms", [...s.processNames, ...s.domains, ...s.remoteIps].slice(0, 8)),
      ...w,
    },
    iam_changes: {
      ...opt("project", s.project),
      ...opt(
        "member",
        s.granted.map((g) => g.member),
      ),
      ...w,
    },
    principal_activity: { ...opt("principal", s.principal ?? s.granted[0]?.member), ...w },
    caller_activity: { ...opt("ips", s.callerIp ?? s.publicIps), ...w },
    resource_activity: {
      resource: [s.instance ?? s.bucket ?? s.resourceShort],
      ...opt("project", s.project),
      ...w,
    },
    bucket_access: { bucket: [s.bucket ?? s.resourceShort], ...w },
    bucket_policy: { bucket: [s.bucket ?? s.resourceShort], ...opt("project", s.project), ...w },
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
    default:
      return true;
  }
}
