import type { JsonObject } from "../../domain/json.js";
import type { Intent } from "../intents.js";
import { isIpv4 } from "../net.js";
import type { LogToolShape } from "./declarations.js";

/** Runbooks take one value per call; an intent with several values becomes a few calls. */
const MAX_CALLS_PER_INTENT = 4;

export interface RunbookRequest {
  runbook: string;
  params: Record<string, string>;
}

function each(values: readonly string[] | undefined, max = MAX_CALLS_PER_INTENT): string[] {
  return [...new Set(values ?? [])].slice(0, max);
}

/**
 * Which runbooks of functions/runbooks answer an intent, with their parameters. The names
 * and parameters follow the runbook headers (`-- param: ip STRING …`); the time window is
 * always the intent's own start/end.
 */
export function runbooksFor(intent: Intent): RunbookRequest[] {
  const p = intent.params;
  const start = p.start?.[0];
  const end = p.end?.[0];
  if (!start || !end) return [];
  const w = { start, end };
  const instance = p.instance?.[0];
  const rb = (runbook: string, params: Record<string, string>): RunbookRequest => ({
    runbook,
    params: { ...params, ...w },
  });
  switch (intent.kind) {
    case "intel":
      return [];
    case "flows": {
      const ips = each(p.ips?.filter(isIpv4));
      // A domain: connections to whatever it resolved to, joined in one query (no wait for a DNS step).
      const answered = each(p.domains, 2).map((domain) => rb("vpc_flows_to_dns_answers", { domain }));
      if (ips.length > 0 || answered.length > 0)
        return [...ips.map((ip) => rb("vpc_flows_to_ip", { ip })), ...answered].slice(
          0,
          MAX_CALLS_PER_INTENT,
        );
      return instance ? [rb("vpc_flows_from_instance", { instance })] : [];
    }
    case "egress":
      return instance ? [rb("vpc_flows_from_instance", { instance })] : [];
    case "ingress":
      return instance ? [rb("vpc_flows_to_instance", { instance })] : [];
    case "dns": {
      const domains = each(p.domains, 3);
      if (domains.length > 0) return domains.map((domain) => rb("dns_queries_for_domain", { domain }));
      // An address: the names that resolved to it (reached by name, or hard-coded).
      const answered = each(p.ips?.filter(isIpv4), 3);
      if (answered.length > 0) return answered.map((ip) => rb("dns_lookups_answered_with_ip", { ip }));
      return instance ? [rb("dns_queries_from_instance", { instance })] : [];
    }
    case "ssh_auth": {
      const ips = each(p.ips?.filter(isIpv4), 2);
      const onHost = instance ? [rb("ssh_logins_on_host", { instance })] : [];
      // On the host: did any source get in? From the IP: which other VMs it tried.
      return [
        ...onHost,
        ...ips.slice(0, onHost.length ? 1 : 2).map((ip) => rb("ssh_logins_from_ip", { ip })),
      ];
    }
    case "host_logs": {
      // What ran around the first lookup of a domain, on whichever VM made it.
      if (p.near?.[0] === "dns" && p.domains?.length)
        return each(p.domains, 2).map((domain) => rb("host_syslog_near_dns", { domain }));
      if (!instance) return [];
      const terms = each(p.terms);
      return terms.length > 0
        ? terms.map((term) => rb("host_syslog_search", { instance, term }))
        : [rb("host_syslog", { instance })];
    }
    case "iam_changes": {
      const accounts = each(
        [...(p.principal ?? []), ...(p.member ?? [])].filter((m) => m.endsWith(".gserviceaccount.com")),
        2,
      );
      return [
        rb("iam_policy_changes", {}),
        ...accounts.map((service_account) => rb("service_account_key_activity", { service_account })),
      ];
    }
    case "principal_activity":
      return each(p.principal, 3).map((principal) => rb("principal_activity", { principal }));
    case "caller_activity":
      return each(p.ips, 3).map((ip) => rb("caller_ip_activity", { ip }));
    case "resource_activity":
      return each([...(p.resource ?? []), ...(p.bucket ?? [])], 2).map((resource) =>
        rb("resource_activity", { resource }),
      );
    case "bucket_access":
      return each(p.bucket, 1).map((bucket) => rb("bucket_data_access", { bucket }));
    case "bucket_policy":
      return each(p.bucket, 1).map((bucket) => rb("bucket_iam_changes", { bucket }));
    case "principal_history": {
      // The look-back runs from `start` to `end`; `recent` splits it into history and window.
      const recent = p.recent?.[0] ?? start;
      const principals = each(p.principal, 2);
      if (principals.length > 0)
        return principals.map((principal) => rb("principal_history", { principal, recent }));
      // No actor named: the history of whoever changed the resource, found in the same query.
      return each(p.resource, 1).map((resource) => rb("resource_changer_history", { resource, recent }));
    }
    case "denied_allowed":
      return [rb("access_denied_then_allowed", {})];
    case "logging_changes":
      // The change to what is logged, and where the data-access logs stop.
      return [rb("logging_config_changes", {}), rb("data_access_by_resource", {})];
    case "lb_requests": {
      const ips = each(p.ips?.filter(isIpv4), 3);
      if (ips.length > 0) return ips.map((ip) => rb("lb_requests_from_ip", { ip }));
      return each(p.backend, 1).map((backend_service) => rb("lb_requests_to_backend", { backend_service }));
    }
  }
}

/**
 * Runbook calls in the shape the log tool declares ({runbook, params}), used only when the
 * declaration accepts runbooks and advertises every runbook needed (or lists none, leaving
 * the name unchecked); otherwise the caller falls back to the intent's own SQL.
 */
export function runbookCalls(shape: LogToolShape, intent: Intent): JsonObject[] {
  if (!shape.acceptsRunbook) return [];
  const requests = runbooksFor(intent);
  if (requests.length === 0) return [];
  const advertised = new Set(shape.runbooks);
  if (advertised.size > 0 && !requests.every((r) => advertised.has(r.runbook))) return [];
  const key = shape.runbookParamsKey ?? "params";
  return requests.map((r) => ({ runbook: r.runbook, [key]: r.params }));
}
