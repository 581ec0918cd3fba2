import type { Ioc } from "../../domain/ioc.js";
import { bareMember, isPublicIp } from "../net.js";
import { isBad } from "./intel.js";
import type { Evidence } from "./types.js";

function span(e: { first?: string; last?: string }): string {
  if (e.first && e.last && e.first !== e.last) return `, first ${e.first}, last ${e.last}`;
  const at = e.first ?? e.last;
  return at ? `, at ${at}` : "";
}

export function humanBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text);
}

export function factOf(e: Evidence, source: string): string {
  switch (e.kind) {
    case "intel": {
      const tags = e.tags.length ? `; tags ${e.tags.slice(0, 6).join(", ")}` : "";
      const related = e.related.length ? `; related ${e.related.slice(0, 4).join(", ")}` : "";
      const sources = e.sources.length ? `; sources ${e.sources.slice(0, 3).join(", ")}` : "";
      return `${source}: ${e.type} ${e.value} is ${e.verdict}${tags}${related}${sources}`;
    }
    case "flow":
      return `${source}: ${e.count} flow record(s) ${e.instance && e.localIp ? `${e.instance} (${e.localIp})` : (e.localIp ?? e.instance ?? "workload")} ↔ ${e.remoteIp}${e.port !== undefined ? ` port ${e.port}` : ""}${e.protocol === 17 ? " UDP" : e.protocol === 6 ? " TCP" : ""}${e.sessions !== undefined ? `, ${e.sessions} session(s)` : ""}${e.bytes !== undefined ? `, ${humanBytes(e.bytes)}` : ""}${e.packets !== undefined ? `, ${e.packets} packets` : ""}${span(e)}${durationText(e)}`;
    case "dns":
      return `${source}: ${e.query} queried ${e.count} time(s)${e.source ? ` by ${e.source}` : ""}${e.answers.length ? `, answers ${e.answers.slice(0, 4).join(", ")}` : ""}${e.responseCode ? `, rcode ${e.responseCode}` : ""}${span(e)}`;
    case "auth":
      return `${source}: ${e.count} ${e.outcome}${e.invalidUser ? " (invalid user)" : ""} login(s)${e.user ? ` for ${e.user}` : ""}${e.sourceIp ? ` from ${e.sourceIp}` : ""}${e.host ? ` on ${e.host}` : ""}${span(e)}`;
    case "audit": {
      const grants = e.bindings.map((b) => `${b.action} ${b.role} → ${b.member}`).join("; ");
      return `${source}: ${e.method} ×${e.count}${e.principal ? ` by ${e.principal}` : ""}${e.callerIp ? ` from ${e.callerIp}` : ""}${e.resource ? ` on ${e.resource}` : ""}${grants ? ` (${grants})` : ""}${e.tickets.length ? `, cites ${e.tickets.join(", ")}` : ""}${e.userAgent ? `, user agent ${quote(e.userAgent)}` : ""}${e.failed ? ", denied" : ""}${span(e)}`;
    }
    case "object_read":
      return `${source}: ${e.count} ${e.method} of ${e.bucket ? `gs://${e.bucket}/` : ""}${e.object ?? "objects"} by ${e.principal ? e.principal : "an anonymous caller"}${e.callerIp ? ` from ${e.callerIp}` : ""}${span(e)}`;
    case "host_line":
      return `${source}: log line${e.host ? ` on ${e.host}` : ""}${span(e)}: ${quote(e.text)}`;
    case "history": {
      const origin = [
        e.callerIp ? `from ${e.callerIp}` : "",
        e.network ? `network ${e.network}` : "",
        e.userAgent ? `user agent ${quote(e.userAgent)}` : "",
        e.accessLevels.length ? `access level ${e.accessLevels.join(", ")}` : "no access level",
      ]
        .filter(Boolean)
        .join(", ");
      const before =
        e.daysBefore > 0
          ? `${e.callsBefore} call(s) on ${e.daysBefore} earlier day(s) before the window`
          : "never before the window (first seen in it)";
      return `${source}: ${e.principal ?? "the principal"} ${e.method ? `${e.method} ` : ""}${origin}: ${before}, ${e.callsRecent} in the window${span(e)}`;
    }
    case "denied_allowed":
      return `${source}: ${e.principal ?? "a caller"}${e.callerIp ? ` from ${e.callerIp}` : ""} to ${e.service ?? "a service"}: ${e.denied} denied${e.deniedMethod ? ` (${e.deniedMethod})` : ""}${e.lastDenied ? `, last at ${e.lastDenied}` : ""}${e.reason ? ` — ${quote(e.reason)}` : ""}; ${e.allowed} allowed${e.firstAllowedAfter ? `, first success after the denials at ${e.firstAllowedAfter}` : ""}${e.allowedMethod ? ` (${e.allowedMethod})` : ""}`;
    case "http_request":
      return `${source}: ${e.count} request(s)${e.remoteIp ? ` from ${e.remoteIp}` : ""}${e.backend ? ` to backend ${e.backend}` : ""}: HTTP ${e.status ?? "?"}${e.statusDetails ? ` (${e.statusDetails})` : ""}${e.policy ? `, Cloud Armor ${e.policy} ${e.outcome ?? ""}`.trimEnd() : ""}${e.wafRules.length ? `, rules ${e.wafRules.slice(0, 3).join(", ")}` : ""}${span(e)}`;
  }
}

function durationText(e: { first?: string; last?: string }): string {
  if (!e.first || !e.last) return "";
  const seconds = Math.round((Date.parse(e.last) - Date.parse(e.first)) / 1000);
  if (!Number.isFinite(seconds) || seconds < 60) return "";
  return seconds >= 3600 ? ` (${(seconds / 3600).toFixed(1)} h)` : ` (${Math.round(seconds / 60)} min)`;
}

/** IOCs the activity itself ties to the step, each with the context it was seen in. */
export function iocsOf(e: Evidence): Ioc[] {
  switch (e.kind) {
    case "intel":
      return isBad(e)
        ? [
            {
              type: e.type,
              value: e.value,
              context: `threat intel: ${e.verdict}${e.tags.length ? ` (${e.tags.slice(0, 3).join(", ")})` : ""}`,
            },
          ]
        : [];
    case "flow":
      return isPublicIp(e.remoteIp)
        ? [
            {
              type: "ip",
              value: e.remoteIp,
              context: `${e.count} flow(s)${e.port !== undefined ? ` on port ${e.port}` : ""}`,
            },
          ]
        : [];
    case "dns":
      return [
        { type: "domain", value: e.query, context: `DNS query ×${e.count}` },
        ...e.answers
          .filter(isPublicIp)
          .map((a): Ioc => ({ type: "ip", value: a, context: `DNS answer for ${e.query}` })),
      ];
    case "auth":
      return e.sourceIp && isPublicIp(e.sourceIp)
        ? [{ type: "ip", value: e.sourceIp, context: `${e.count} ${e.outcome} login(s)` }]
        : [];
    case "audit":
      return [
        ...(e.callerIp && isPublicIp(e.callerIp)
          ? [{ type: "ip" as const, value: e.callerIp, context: `caller of ${e.method}` }]
          : []),
        ...e.bindings
          .filter((b) => b.action === "ADD" && b.member.includes("@"))
          .map(
            (b): Ioc => ({ type: "principal", value: bareMember(b.member), context: `granted ${b.role}` }),
          ),
      ];
    case "object_read":
      return e.callerIp && isPublicIp(e.callerIp)
        ? [
            {
              type: "ip",
              value: e.callerIp,
              context: `${e.principal ? "read" : "anonymous read"} of bucket objects`,
            },
          ]
        : [];
    case "host_line":
      return [];
    case "history":
      return e.callerIp && isPublicIp(e.callerIp) && e.daysBefore === 0 && e.callsRecent > 0
        ? [
            {
              type: "ip",
              value: e.callerIp,
              context: `first-seen address of ${e.principal ?? "the principal"}`,
            },
          ]
        : [];
    case "denied_allowed":
      return [
        ...(e.callerIp && isPublicIp(e.callerIp)
          ? [
              {
                type: "ip" as const,
                value: e.callerIp,
                context: `${e.denied} denied then ${e.allowed} allowed call(s)`,
              },
            ]
          : []),
        ...(e.principal && e.firstAllowedAfter
          ? [{ type: "principal" as const, value: e.principal, context: "denied, then allowed" }]
          : []),
      ];
    case "http_request":
      return e.remoteIp && isPublicIp(e.remoteIp)
        ? [
            {
              type: "ip",
              value: e.remoteIp,
              context: `${e.count} request(s) to the load balancer, HTTP ${e.status ?? "?"}${e.outcome ? ` (${e.outcome})` : ""}`,
            },
          ]
        : [];
  }
}
