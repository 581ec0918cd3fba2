import { tagged } from "../errors.js";
import { EXPRESSION_FUNCTIONS } from "../stdlib/functions.js";
import { encodeJson } from "../stdlib/json.js";
import { HTTP_METHOD_CALLS } from "../stdlib/signatures.js";
import { isMap, isNumber, numberValue, toJs, typeName, type WfValue } from "../values.js";
import { awaitCallback, createCallbackEndpoint } from "./callbacks.js";
import type { RunContext } from "./context.js";
import { httpCall } from "./http.js";
import type { LogEntry } from "./options.js";

const SEVERITIES = new Set([
  "DEFAULT",
  "DEBUG",
  "INFO",
  "NOTICE",
  "WARNING",
  "ERROR",
  "CRITICAL",
  "ALERT",
  "EMERGENCY",
]);

/** Runs a standard-library call step. Argument names were validated at load time. */
export async function callBuiltin(
  name: string,
  args: ReadonlyMap<string, WfValue>,
  ctx: RunContext,
): Promise<WfValue> {
  const fixedMethod = HTTP_METHOD_CALLS.get(name);
  if (fixedMethod !== undefined) return httpCall(fixedMethod, args, ctx);
  switch (name) {
    case "http.request":
      return httpCall(null, args, ctx);
    case "sys.sleep":
      await sleep(args.get("seconds") ?? null, ctx);
      return null;
    case "sys.log":
      ctx.log(logEntry(args, ctx.now()));
      return null;
    case "events.create_callback_endpoint":
      return createCallbackEndpoint(args, ctx);
    case "events.await_callback":
      return awaitCallback(args, ctx);
  }
  const spec = EXPRESSION_FUNCTIONS.get(name);
  if (!spec) throw tagged("SystemError", `no implementation for ${name}`);
  return spec.impl(
    spec.params.map((p) => args.get(p) ?? null),
    ctx,
  );
}

async function sleep(seconds: WfValue, ctx: RunContext): Promise<void> {
  if (!isNumber(seconds))
    throw tagged("TypeError", `sys.sleep seconds must be a number, got ${typeName(seconds)}`);
  const value = numberValue(seconds);
  if (value < 0) throw tagged("ValueError", "sys.sleep seconds must not be negative");
  await ctx.sleep(value * 1000);
}

function logEntry(args: ReadonlyMap<string, WfValue>, atMs: number): LogEntry {
  const severity = args.get("severity") ?? "DEFAULT";
  if (typeof severity !== "string" || !SEVERITIES.has(severity)) {
    throw tagged("ValueError", `sys.log severity must be one of ${[...SEVERITIES].join(", ")}`);
  }
  if (args.has("json")) {
    const json = args.get("json") ?? null;
    if (!isMap(json)) throw tagged("TypeError", `sys.log json must be a map, got ${typeName(json)}`);
    return { severity, json: toJs(json), atMs };
  }
  // `data` goes to the JSON payload only when it is a map; `text` is always text.
  const data = args.get("data");
  if (data !== undefined && isMap(data)) return { severity, json: toJs(data), atMs };
  const payload = data !== undefined ? data : (args.get("text") ?? null);
  return { severity, text: typeof payload === "string" ? payload : encodeJson(payload), atMs };
}
