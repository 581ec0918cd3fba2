import type { CallRecord, CallScope } from "./types.js";

function str(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** The single values a runbook call was asked about (runbooks take one IP, one domain, …). */
export function scopeOf(call: CallRecord): CallScope {
  const params = call.args.params;
  if (typeof params !== "object" || params === null || Array.isArray(params)) return {};
  const p = params as Record<string, unknown>;
  const scope: CallScope = {};
  const ip = str(p.ip) ?? str(p.caller_ip) ?? str(p.source_ip);
  const domain = str(p.domain);
  const instance = str(p.instance) ?? str(p.vm);
  const principal = str(p.principal) ?? str(p.service_account);
  const bucket = str(p.bucket);
  if (ip) scope.ip = ip;
  if (domain) scope.domain = domain.toLowerCase();
  if (instance) scope.instance = instance;
  if (principal) scope.principal = principal;
  if (bucket) scope.bucket = bucket;
  return scope;
}
