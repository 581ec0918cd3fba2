/**
 * What a planned step wants to know, independent of how a tool answers it. Playbooks plan
 * intents, the step executor turns them into tool calls, the evidence readers turn the answers
 * back into facts and signals.
 */
export type IntentKind =
  | "intel"
  | "flows"
  | "egress"
  /** Who connected to a workload: inbound sources and ports (runbook vpc_flows_to_instance). */
  | "ingress"
  | "dns"
  | "ssh_auth"
  | "host_logs"
  | "iam_changes"
  | "principal_activity"
  | "caller_activity"
  | "resource_activity"
  | "bucket_access"
  | "bucket_policy"
  /** A principal's look-back: first-seen addresses, user agents, access levels; habits (runbook principal_history). */
  | "principal_history"
  /** Calls denied and later allowed, e.g. around a policy or perimeter change (runbook access_denied_then_allowed). */
  | "denied_allowed"
  /** Requests at the load balancer and what Cloud Armor did with them (runbooks lb_requests_*). */
  | "lb_requests"
  /** Changes to what is logged: audit configs, sinks, exclusions (runbook logging_config_changes). */
  | "logging_changes";

export const INTENT_KINDS: readonly IntentKind[] = [
  "intel",
  "flows",
  "egress",
  "ingress",
  "dns",
  "ssh_auth",
  "host_logs",
  "iam_changes",
  "principal_activity",
  "caller_activity",
  "resource_activity",
  "bucket_access",
  "bucket_policy",
  "principal_history",
  "denied_allowed",
  "lb_requests",
  "logging_changes",
];

/**
 * Parameters are plain tokens (IPs, domains, emails, names, timestamps): list values are
 * comma-joined, so a description can carry them without quoting.
 */
export type IntentParams = Partial<Record<IntentParam, string[]>>;
export type IntentParam =
  | "ips"
  | "domains"
  | "hashes"
  | "instance"
  | "principal"
  | "member"
  | "bucket"
  | "project"
  | "resource"
  | "terms"
  | "ports"
  | "start"
  | "end"
  /** principal_history: where the recent window begins; the look-back (start…recent) is the history. */
  | "recent"
  /** A load balancer backend service name. */
  | "backend"
  /**
   * What the planner knew of the table's time span: "covered" (an empty answer is absence) or
   * "outside" (the table cannot hold the window). Either way an empty answer is not re-asked wider.
   */
  | "logs"
  /**
   * "dns": read around each VM's first lookup of the intent's domains, joined in one query.
   * "prior": narrow the window to minutes around the first event the steps this one depends on found. */
  | "near";

export const INTENT_PARAMS: readonly IntentParam[] = [
  "ips",
  "domains",
  "hashes",
  "instance",
  "principal",
  "member",
  "bucket",
  "project",
  "resource",
  "terms",
  "ports",
  "start",
  "end",
  "recent",
  "backend",
  "logs",
  "near",
];

export interface Intent {
  kind: IntentKind;
  params: IntentParams;
}

/** The tool each intent needs; a playbook step is skipped when its tool is not offered. */
export function toolFor(kind: IntentKind): "threat_intel_lookup" | "log_query" {
  return kind === "intel" ? "threat_intel_lookup" : "log_query";
}

/** Which exported log table family an intent reads, matched loosely against table names. */
export const INTENT_TABLE: Record<Exclude<IntentKind, "intel">, { pattern: RegExp; name: string }> = {
  flows: { pattern: /vpc_flows/i, name: "compute_googleapis_com_vpc_flows" },
  egress: { pattern: /vpc_flows/i, name: "compute_googleapis_com_vpc_flows" },
  ingress: { pattern: /vpc_flows/i, name: "compute_googleapis_com_vpc_flows" },
  dns: { pattern: /dns/i, name: "dns_googleapis_com_dns_queries" },
  ssh_auth: { pattern: /syslog|auth/i, name: "syslog" },
  host_logs: { pattern: /syslog/i, name: "syslog" },
  iam_changes: { pattern: /cloudaudit.*activity/i, name: "cloudaudit_googleapis_com_activity" },
  principal_activity: { pattern: /cloudaudit/i, name: "cloudaudit_googleapis_com_activity" },
  caller_activity: { pattern: /cloudaudit/i, name: "cloudaudit_googleapis_com_activity" },
  resource_activity: { pattern: /cloudaudit.*activity/i, name: "cloudaudit_googleapis_com_activity" },
  bucket_access: { pattern: /data_access/i, name: "cloudaudit_googleapis_com_data_access" },
  bucket_policy: { pattern: /cloudaudit.*activity/i, name: "cloudaudit_googleapis_com_activity" },
  principal_history: { pattern: /cloudaudit/i, name: "cloudaudit_googleapis_com_activity" },
  denied_allowed: { pattern: /cloudaudit/i, name: "cloudaudit_googleapis_com_activity" },
  lb_requests: { pattern: /(^|[._])requests$/i, name: "requests" },
  logging_changes: { pattern: /cloudaudit.*activity/i, name: "cloudaudit_googleapis_com_activity" },
};

/** Unknown tables (an empty list) mean "not told", not "none": the step is kept. */
export function tableAvailable(kind: IntentKind, tables: readonly string[]): boolean {
  if (kind === "intel" || tables.length === 0) return true;
  return tables.some((t) => INTENT_TABLE[kind].pattern.test(t));
}
