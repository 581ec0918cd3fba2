import {
  INTENT_KINDS,
  INTENT_PARAMS,
  type Intent,
  type IntentKind,
  type IntentParam,
  type IntentParams,
} from "./intents.js";

/**
 * A planned step carries its intent in a bracketed tail of its description, e.g.
 * `[plan: flows ips=203.0.113.7 instance=vm-1 start=… end=…]`, so the step executor (and a
 * human) can see exactly which query and values were meant. Values that are not plain
 * tokens are dropped: finding fields are attacker-influenced and must not be able to
 * break out of the tail.
 */
const SAFE_VALUE = /^[A-Za-z0-9@._:/+*-]{1,256}$/;
const TAIL = /\[plan: ([a-z_]+)((?: [a-z]+=[^\s\]]+)*)\]/;

export function safeValues(values: readonly string[]): string[] {
  return [...new Set(values.filter((v) => SAFE_VALUE.test(v)))];
}

export function encodeIntent(intent: Intent): string {
  const parts: string[] = [intent.kind];
  for (const key of INTENT_PARAMS) {
    const values = safeValues(intent.params[key] ?? []);
    if (values.length > 0) parts.push(`${key}=${values.join(",")}`);
  }
  return `[plan: ${parts.join(" ")}]`;
}

export function decodeIntent(description: string): Intent | undefined {
  const match = TAIL.exec(description);
  if (!match) return undefined;
  const kind = match[1] as IntentKind;
  if (!INTENT_KINDS.includes(kind)) return undefined;
  const params: IntentParams = {};
  for (const pair of (match[2] ?? "").trim().split(" ").filter(Boolean)) {
    const eq = pair.indexOf("=");
    const key = pair.slice(0, eq) as IntentParam;
    if (!INTENT_PARAMS.includes(key)) continue;
    const values = safeValues(pair.slice(eq + 1).split(","));
    if (values.length > 0) params[key] = values;
  }
  return { kind, params };
}
