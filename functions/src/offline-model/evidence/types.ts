import type { IocType } from "../../domain/ioc.js";

/**
 * What a tool answer showed, in a shape the rules can reason over. Built from rows and
 * intel reports by field names (never by asking the text what to do), so it works the same
 * for steps the offline model ran and for steps an LLM ran before it took over.
 */
export type Evidence =
  | IntelEvidence
  | FlowEvidence
  | DnsEvidence
  | AuthEvidence
  | AuditEvidence
  | ObjectReadEvidence
  | HostLineEvidence
  | HistoryEvidence
  | DeniedAllowedEvidence
  | HttpRequestEvidence;

export interface Span {
  /** Events or rows behind this item (aggregated rows carry their own count). */
  count: number;
  first?: string;
  last?: string;
}

export interface IntelEvidence {
  kind: "intel";
  type: IocType;
  value: string;
  verdict: "malicious" | "suspicious" | "benign" | "unknown";
  tags: string[];
  sources: string[];
  related: string[];
}

export interface FlowEvidence extends Span {
  kind: "flow";
  localIp?: string;
  remoteIp: string;
  port?: number;
  bytes?: number;
  packets?: number;
  /** Name of the VM on the local side when the row says. */
  instance?: string;
  /** Distinct conversations (local ports) behind the records, when the query counted them. */
  sessions?: number;
  /** IANA protocol number (6 TCP, 17 UDP). */
  protocol?: number;
}

export interface DnsEvidence extends Span {
  kind: "dns";
  query: string;
  source?: string;
  answers: string[];
  responseCode?: string;
}

export interface AuthEvidence extends Span {
  kind: "auth";
  outcome: "failed" | "accepted";
  /**
   * sshd logs an "Invalid user" line next to the "Failed password" line of the same attempt;
   * counted apart so attempts are not doubled.
   */
  invalidUser?: boolean;
  sourceIp?: string;
  user?: string;
  host?: string;
}

export interface AuditEvidence extends Span {
  kind: "audit";
  method: string;
  principal?: string;
  callerIp?: string;
  userAgent?: string;
  resource?: string;
  keyName?: string;
  /** Role bindings the entry added or removed, when it is a policy change. */
  bindings: { action: "ADD" | "REMOVE"; role: string; member: string }[];
  /** Change-ticket references (CHG-123, JIRA keys) found in justification-like fields. */
  tickets: string[];
  /** What the call changed in what is logged ("REMOVE storage.googleapis.com DATA_READ"), when it did. */
  logging?: string[];
  /** The request configures static website serving (mainPageSuffix / notFoundPage). */
  website?: boolean;
  /** What in the request says "public on purpose": website config, labels such as purpose=public-website. */
  intentHints: string[];
  failed?: boolean;
}

export interface ObjectReadEvidence extends Span {
  kind: "object_read";
  bucket?: string;
  object?: string;
  /** Empty when the caller was anonymous (allUsers). */
  principal?: string;
  callerIp?: string;
  method: string;
}

export interface HostLineEvidence extends Span {
  kind: "host_line";
  text: string;
  host?: string;
}

/**
 * One principal's calls from one address, network, user agent and access level (and one
 * method), split at the start of the finding's window: the look-back before it is the
 * principal's history (runbook principal_history).
 */
export interface HistoryEvidence extends Span {
  kind: "history";
  principal?: string;
  callerIp?: string;
  network?: string;
  userAgent?: string;
  /** Access Context Manager levels the calls satisfied (a managed-device level, …). */
  accessLevels: string[];
  method?: string;
  callsBefore: number;
  /** Distinct days with calls before the window. */
  daysBefore: number;
  callsRecent: number;
}

/**
 * Calls of one principal from one address to one service that were denied and, later,
 * allowed (runbook access_denied_then_allowed).
 */
export interface DeniedAllowedEvidence extends Span {
  kind: "denied_allowed";
  principal?: string;
  callerIp?: string;
  service?: string;
  denied: number;
  allowed: number;
  lastDenied?: string;
  /** The first success after the first denial: set when the control stopped the caller and later let it through. */
  firstAllowedAfter?: string;
  reason?: string;
  deniedMethod?: string;
  allowedMethod?: string;
}

/** Requests one client sent to a load balancer, with what the front end and Cloud Armor did. */
export interface HttpRequestEvidence extends Span {
  kind: "http_request";
  remoteIp?: string;
  backend?: string;
  status?: number;
  statusDetails?: string;
  policy?: string;
  /** Cloud Armor's outcome: ACCEPT or DENY. */
  outcome?: string;
  wafRules: string[];
  url?: string;
}

/** One tool call as the evidence readers see it, whoever issued it. */
export interface CallRecord {
  name: string;
  args: Record<string, unknown>;
  ok: boolean;
  summary: string;
  data: unknown;
}

/**
 * What the call asked about, from its runbook parameters: a runbook for "flows to IP X"
 * returns rows without X in them, so the reader needs to know X.
 */
export interface CallScope {
  ip?: string;
  domain?: string;
  instance?: string;
  principal?: string;
  bucket?: string;
}

export interface ReadCall {
  call: CallRecord;
  /** Rows the query returned (undefined when the call was not a row query). */
  rows?: number;
  evidence: Evidence[];
}
