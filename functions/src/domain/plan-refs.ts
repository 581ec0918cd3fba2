import type { Finding } from "./finding/finding.js";
import { findingIocs } from "./finding/finding.js";
import { findingIocOccurrences } from "./finding/finding-iocs.js";
import { isPrivateOrReservedIpv4 } from "./ioc.js";
import type { JsonObject, JsonValue } from "./json.js";
import type { StepResult } from "./results.js";

/**
 * References in a planned tool call's arguments. A string argument that is exactly
 * `{{finding.<field>}}` or `{{steps.<stepId>.<field>}}` is replaced by a typed value read in
 * code: the planner names which value a call needs, it never copies (or invents) the value
 * itself. A reference is always a whole argument value, never spliced into a longer string,
 * so a finding field cannot become part of a SQL text or a sentence by way of a reference.
 */
export const FINDING_REFS = [
  "name",
  "category",
  "eventTime",
  "resource",
  "project",
  "principal",
  "callerIp",
  "ips",
  "publicIps",
  "domains",
  "hashes",
  "indicators",
] as const;
export type FindingRef = (typeof FINDING_REFS)[number];

export const STEP_REFS = ["iocs", "ips", "domains", "hashes", "principals", "summary"] as const;
export type StepRef = (typeof STEP_REFS)[number];

export type Reference =
  | { source: "finding"; field: FindingRef; text: string }
  | { source: "step"; stepId: string; field: StepRef; text: string };

const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const STEP_ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** Parses one argument string; undefined when it is a plain value, an error text when it is a broken reference. */
export function parseReference(value: string): Reference | { error: string } | undefined {
  const match = WHOLE.exec(value);
  if (!match) {
    return value.includes("{{")
      ? { error: `"${clip(value)}" mixes a reference with other text; a reference must be the whole value` }
      : undefined;
  }
  const parts = (match[1] ?? "").split(".");
  if (parts[0] === "finding" && parts.length === 2) {
    const field = parts[1] as FindingRef;
    if (FINDING_REFS.includes(field)) return { source: "finding", field, text: value };
    return { error: `unknown finding reference "${clip(value)}"; known: ${FINDING_REFS.join(", ")}` };
  }
  if (parts[0] === "steps" && parts.length === 3) {
    const stepId = parts[1] ?? "";
    const field = parts[2] as StepRef;
    if (!STEP_ID.test(stepId)) return { error: `"${clip(value)}" names no valid step id` };
    if (STEP_REFS.includes(field)) return { source: "step", stepId, field, text: value };
    return { error: `unknown step output "${clip(value)}"; known: ${STEP_REFS.join(", ")}` };
  }
  return { error: `"${clip(value)}" is not a reference; use {{finding.<field>}} or {{steps.<id>.<field>}}` };
}

/** Every reference (or broken reference) in a call's arguments, depth first. */
export function referencesIn(args: JsonValue): (Reference | { error: string })[] {
  if (typeof args === "string") {
    const parsed = parseReference(args);
    return parsed ? [parsed] : [];
  }
  if (Array.isArray(args)) return args.flatMap(referencesIn);
  if (args !== null && typeof args === "object") return Object.values(args).flatMap(referencesIn);
  return [];
}

export type Resolution = { ok: true; args: JsonObject } | { ok: false; reason: string };

/**
 * Replaces every reference in `args` with its value. Fails, naming the reference, when a value
 * is missing (the finding has no principal; the step found no IPs) or the step it reads has no
 * successful result: a call with a hole in its arguments is not run.
 */
export function resolveArguments(
  args: JsonObject,
  sources: { finding: Finding; results: readonly StepResult[] },
): Resolution {
  const problems: string[] = [];
  const walk = (value: JsonValue): JsonValue => {
    if (typeof value === "string") {
      const ref = parseReference(value);
      if (!ref) return value;
      if ("error" in ref) {
        problems.push(ref.error);
        return null;
      }
      const resolved =
        ref.source === "finding" ? findingValue(sources.finding, ref.field) : stepValue(sources.results, ref);
      if (typeof resolved === "object" && resolved !== null && "missing" in resolved) {
        problems.push(`${ref.text}: ${resolved.missing}`);
        return null;
      }
      return resolved;
    }
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  const out = walk(args) as JsonObject;
  return problems.length > 0 ? { ok: false, reason: problems.join("; ") } : { ok: true, args: out };
}

type Resolved = JsonValue | { missing: string };

function present(value: string | undefined, what: string): Resolved {
  return value && value.length > 0 ? value : { missing: `the finding has no ${what}` };
}

function nonEmpty(values: readonly string[], what: string): Resolved {
  const unique = [...new Set(values.filter((v) => v.length > 0))];
  return unique.length > 0 ? unique : { missing: `the finding names no ${what}` };
}

function findingValue(f: Finding, field: FindingRef): Resolved {
  const iocs = findingIocs(f);
  const ofType = (type: string) => iocs.filter((i) => i.type === type).map((i) => i.value);
  switch (field) {
    case "name":
      return f.name;
    case "category":
      return f.category;
    case "eventTime":
      return f.eventTime;
    case "resource":
      return present(f.resource.name, "resource name");
    case "project":
      return present(f.resource.project, "project");
    case "principal":
      return present(f.access?.principalEmail, "principal (access.principalEmail)");
    case "callerIp":
      return present(f.access?.callerIp, "caller IP (access.callerIp)");
    case "ips":
      // Internal endpoints are not IOCs (never sent to intel) but they are what log queries need.
      return nonEmpty(
        [...ofType("ip"), ...findingIocOccurrences(f).internalEndpoints.map((e) => e.value)],
        "IP address",
      );
    case "publicIps":
      return nonEmpty(
        ofType("ip").filter((ip) => !isPrivateOrReservedIpv4(ip)),
        "public IP address",
      );
    case "domains":
      return nonEmpty(ofType("domain"), "domain");
    case "hashes":
      return nonEmpty(ofType("hash"), "file hash");
    case "indicators": {
      const list = iocs
        .filter(
          (i) =>
            (i.type === "ip" && !isPrivateOrReservedIpv4(i.value)) ||
            i.type === "domain" ||
            i.type === "hash",
        )
        .map((i) => ({ type: i.type, value: i.value }));
      return list.length > 0 ? list : { missing: "the finding names no public IP, domain or hash" };
    }
  }
}

function stepValue(results: readonly StepResult[], ref: Extract<Reference, { source: "step" }>): Resolved {
  const result = results.find((r) => r.stepId === ref.stepId);
  if (!result) return { missing: `step ${ref.stepId} has no result yet` };
  if (result.status !== "done") return { missing: `step ${ref.stepId} ${result.status}` };
  const values = (type: string) => [
    ...new Set(result.iocs.filter((i) => i.type === type).map((i) => i.value)),
  ];
  const list = (type: string, what: string): Resolved => {
    const found = values(type);
    return found.length > 0 ? found : { missing: `step ${ref.stepId} reported no ${what}` };
  };
  switch (ref.field) {
    case "summary":
      return result.summary;
    case "iocs": {
      const all = result.iocs.map((i) => ({ type: i.type, value: i.value }));
      return all.length > 0 ? all : { missing: `step ${ref.stepId} reported no indicators` };
    }
    case "ips":
      return list("ip", "IP address");
    case "domains":
      return list("domain", "domain");
    case "hashes":
      return list("hash", "hash");
    case "principals":
      return nonEmptyOr(
        [...values("principal"), ...values("email")],
        `step ${ref.stepId} reported no principal`,
      );
  }
}

function nonEmptyOr(values: readonly string[], missing: string): Resolved {
  const unique = [...new Set(values)];
  return unique.length > 0 ? unique : { missing };
}

function clip(text: string): string {
  return text.length <= 80 ? text : `${text.slice(0, 79)}…`;
}
