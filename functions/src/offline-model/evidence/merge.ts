import type { Evidence } from "./types.js";

export function keyOf(e: Evidence): string {
  switch (e.kind) {
    case "intel":
      return `intel|${e.type}|${e.value.toLowerCase()}`;
    case "flow":
      return `flow|${e.localIp ?? ""}|${e.remoteIp}|${e.port ?? ""}`;
    case "dns":
      return `dns|${e.query}|${e.source ?? ""}`;
    case "auth":
      return `auth|${e.outcome}|${e.invalidUser ? "invalid" : ""}|${e.sourceIp ?? ""}|${e.user ?? ""}|${e.host ?? ""}`;
    case "audit":
      return `audit|${e.method}|${e.principal ?? ""}|${e.callerIp ?? ""}|${JSON.stringify(e.bindings)}`;
    case "object_read":
      return `read|${e.bucket ?? ""}|${e.object ?? ""}|${e.principal ?? ""}|${e.callerIp ?? ""}`;
    case "host_line":
      return `line|${e.text}`;
    case "history":
      return `history|${e.principal ?? ""}|${e.callerIp ?? ""}|${e.network ?? ""}|${e.userAgent ?? ""}|${e.accessLevels.join(",")}|${e.method ?? ""}`;
    case "denied_allowed":
      return `denied|${e.principal ?? ""}|${e.callerIp ?? ""}|${e.service ?? ""}`;
    case "http_request":
      return `http|${e.remoteIp ?? ""}|${e.backend ?? ""}|${e.status ?? ""}|${e.outcome ?? ""}|${e.statusDetails ?? ""}`;
  }
}

function earlier(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(a) <= Date.parse(b) ? a : b;
}

function later(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

function sum(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

function combine(a: Evidence, b: Evidence): Evidence {
  // Aggregated rows already carry their own totals; the same row twice is the same activity.
  if (a.kind === "intel" || b.kind === "intel") return a;
  if (a.kind === "history" || a.kind === "denied_allowed") return a;
  const first = earlier(a.first, b.first);
  const last = later(a.last, b.last);
  const merged = { ...a, count: a.count + b.count, ...(first ? { first } : {}), ...(last ? { last } : {}) };
  if (merged.kind === "flow" && b.kind === "flow") {
    const bytes = sum(merged.bytes, b.bytes);
    const packets = sum(merged.packets, b.packets);
    return {
      ...merged,
      ...(bytes !== undefined ? { bytes } : {}),
      ...(packets !== undefined ? { packets } : {}),
    };
  }
  if (merged.kind === "dns" && b.kind === "dns")
    return { ...merged, answers: [...new Set([...merged.answers, ...b.answers])] };
  if (merged.kind === "audit" && b.kind === "audit")
    return {
      ...merged,
      tickets: [...new Set([...merged.tickets, ...b.tickets])],
      intentHints: [...new Set([...merged.intentHints, ...b.intentHints])],
      ...(merged.logging || b.logging
        ? { logging: [...new Set([...(merged.logging ?? []), ...(b.logging ?? [])])] }
        : {}),
    };
  return merged;
}

/** Raw rows of the same activity collapse into one item with summed counts and the outer time span. */
export function mergeEvidence(items: readonly Evidence[]): Evidence[] {
  const out = new Map<string, Evidence>();
  for (const item of items) {
    const key = keyOf(item);
    const seen = out.get(key);
    out.set(key, seen ? combine(seen, item) : item);
  }
  return [...out.values()];
}

/**
 * Evidence from several calls: rows within one call add up, but two calls that return the
 * same activity (sshd outcomes per host and per source IP) describe it twice, so across calls
 * the larger count wins instead of the sum.
 */
export function mergeAcrossCalls(perCall: readonly (readonly Evidence[])[]): Evidence[] {
  const out = new Map<string, Evidence>();
  for (const list of perCall) {
    for (const item of mergeEvidence(list)) {
      const key = keyOf(item);
      const seen = out.get(key);
      const count = (e: Evidence) => ("count" in e ? e.count : 0);
      if (!seen || count(item) > count(seen)) out.set(key, item);
    }
  }
  return [...out.values()];
}
