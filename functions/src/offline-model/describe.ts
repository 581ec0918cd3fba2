import type { Intent } from "./intents.js";
import { runbooksFor } from "./step-executor/runbooks.js";
import { encodeIntent } from "./step-text.js";

function list(values: readonly string[] | undefined, fallback: string): string {
  if (!values || values.length === 0) return fallback;
  return values.length <= 3
    ? values.join(", ")
    : `${values.slice(0, 3).join(", ")} and ${values.length - 3} more`;
}

function window(intent: Intent): string {
  const start = intent.params.start?.[0];
  const end = intent.params.end?.[0];
  return start && end ? ` between ${start} and ${end}` : "";
}

/** One plain sentence per intent, then the machine-readable tail the step executor reads. */
export function describeIntent(intent: Intent): string {
  const p = intent.params;
  const on = p.instance ? ` on instance ${p.instance[0]}` : "";
  const sentence = (() => {
    switch (intent.kind) {
      case "intel":
        return `Look up ${list([...(p.ips ?? []), ...(p.domains ?? []), ...(p.hashes ?? [])], "the external IPs and domains found by the steps this one depends on")} in threat intelligence: verdict, tags (mining pool, Tor exit, scanner, sinkhole), sources.`;
      case "flows":
        return `Count VPC flow records between ${p.instance ? `instance ${p.instance[0]}` : "the workload"} and ${p.domains?.length ? `${list(p.ips, "")}${p.ips?.length ? " and " : ""}the addresses ${list(p.domains, "")} resolved to (after each VM's lookup)` : list(p.ips, "the IPs the earlier steps resolved or found")}${window(intent)}: flows, bytes, destination ports, first and last seen.`;
      case "ingress":
        return `List who connected to ${p.instance ? `instance ${p.instance[0]}` : "the workload"} in VPC flow logs${window(intent)}: source addresses, destination ports, flows and bytes, external or internal.`;
      case "egress":
        return `List the top external destinations of ${p.instance ? `instance ${p.instance[0]}` : "the workload"} in VPC flow logs${window(intent)}, with ports and bytes, to spot other remote endpoints.`;
      case "dns":
        return p.ips && !p.domains
          ? `Find the DNS lookups answered with ${list(p.ips, "the address")}${window(intent)}: which VM resolved which name to it, and when.`
          : p.instance && !p.domains
            ? `Find the DNS queries instance ${p.instance[0]} made${window(intent)}: which names, how often, and what the answers were.`
            : `Find DNS queries for ${list(p.domains, "the finding's domains")}${window(intent)}: which source asked, how often, and what the answers were.`;
      case "ssh_auth":
        return `Count sshd authentication events${on}${p.ips ? ` from ${list(p.ips, "")}` : ""}${window(intent)}: failed versus accepted logins, user names, first and last attempt.`;
      case "host_logs":
        return p.near?.[0] === "dns"
          ? `Read the syslog of each VM that looked up ${list(p.domains, "the domain")} in the five minutes around its first lookup${window(intent)}: which process or job made it.`
          : p.near
            ? `Read the host's syslog${on} in the minutes around the first lookup the earlier step found (else search it for ${list(p.terms ?? p.ips, "the indicators")}${window(intent)}): which process or job ran.`
            : `Search the host's syslog${on} for ${list(p.terms ?? p.ips, "the finding's process and indicators")}${window(intent)}: process starts, sudo, persistence.`;
      case "iam_changes":
        return `List IAM policy changes${p.project ? ` in project ${p.project[0]}` : ""}${p.member ? ` that touch ${list(p.member, "")}` : ""}${window(intent)}: who granted which role to whom, from which IP and user agent.`;
      case "principal_activity":
        return `Summarize audit-log activity of ${list(p.principal, "the principal")}${window(intent)}: methods, services, caller IPs and user agents.`;
      case "caller_activity":
        return `Summarize audit-log activity from caller IP ${list(p.ips, "the caller IP")}${window(intent)}: which principals, which methods, how many calls.`;
      case "resource_activity":
        return `List admin audit-log activity on ${list(p.resource ?? p.instance, "the resource")}${window(intent)}: who changed it, with which method, from where.`;
      case "bucket_access":
        return `List data-access log entries for bucket ${list(p.bucket, "the bucket")}${window(intent)}: anonymous versus authenticated reads, objects read, caller IPs.`;
      case "bucket_policy":
        return `List IAM/ACL changes on bucket ${list(p.bucket, "the bucket")}${window(intent)}: who added which members (allUsers, allAuthenticatedUsers) and when.`;
      case "principal_history":
        if (!p.principal && p.resource)
          return `Find who changed ${list(p.resource, "the resource")} since ${p.recent?.[0] ?? "the window"} and compare their calls with their history back to ${p.start?.[0] ?? "the look-back start"}: caller addresses, networks, user agents seen before or first now, and changes they repeat on many days.`;
        return `Compare ${list(p.principal, "the principal")}'s calls since ${p.recent?.[0] ?? "the window"} with its history back to ${p.start?.[0] ?? "the look-back start"}: caller addresses, networks, user agents and access levels seen before or first now, and methods it repeats on many days.`;
      case "denied_allowed":
        return `Find callers that were denied (IAM, VPC Service Controls) and then allowed${window(intent)}: who, from where, to which service, and when the first success came.`;
      case "logging_changes":
        return `List changes to what is logged${window(intent)}: audit-log configuration removed or added (service, log type), log sinks and exclusions changed, by whom, from where.`;
      case "lb_requests":
        return `List load balancer requests${p.ips ? ` from ${list(p.ips, "")}` : p.backend ? ` to backend ${p.backend[0]}` : ""}${window(intent)}: HTTP status, Cloud Armor policy and outcome, whether any reached a backend.`;
    }
  })();
  const runbooks = [...new Set(runbooksFor(intent).map((r) => r.runbook))];
  const via = runbooks.length > 0 ? ` Runbook: ${runbooks.join(", ")}.` : "";
  return `${sentence}${via} ${encodeIntent(intent)}`;
}
