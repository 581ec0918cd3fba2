import { type Ioc, iocKey } from "./ioc.js";
import { walkIocs } from "./ioc-walk.js";
import type { JsonValue } from "./json.js";

/**
 * The IOCs in log rows an investigation read, typed by the same rules as a finding's
 * (ioc-rules.ts): a user agent's browser version is not an address, a gcloud command or API
 * method is not a domain, a log name is not a domain, private addresses are internal
 * endpoints (not sent to intel), Google's own service domains are context. Each row is walked
 * by key, so `callerSuppliedUserAgent` and `methodName` are read as what they are.
 */
export function logRowIocs(rows: readonly JsonValue[], max = Number.POSITIVE_INFINITY): Ioc[] {
  const seen = new Map<string, Ioc>();
  rows.forEach((row, i) => {
    for (const hit of walkIocs(row, `rows[${i}]`)) {
      if (hit.kind !== "ioc" || !hit.type) continue;
      // A log row's identities have always been typed "email" (what the evidence rules read).
      const ioc: Ioc = { type: hit.type === "principal" ? "email" : hit.type, value: hit.value };
      const key = iocKey(ioc);
      if (!seen.has(key) && seen.size < max) seen.set(key, ioc);
    }
  });
  return [...seen.values()];
}
