import { tagged } from "../errors.js";
import { formatTimestamp } from "../stdlib/time.js";
import { fromJs, isMap, isNumber, mapOf, numberValue, typeName, type WfValue } from "../values.js";
import type { RunContext } from "./context.js";

/**
 * events.create_callback_endpoint and events.await_callback, as the standard library
 * reference describes them: the endpoint expects one HTTP method (GET, HEAD, POST, PUT,
 * DELETE, OPTIONS or PATCH; POST by default) and is a map with a `url`; the wait defaults to
 * 43200 s, raises TimeoutError when nothing arrives, and returns the callback request with
 * `http_request` (body, headers, method, query, url), `received_time` and `type: "HTTP"`.
 */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]);
const DEFAULT_TIMEOUT_SECONDS = 43_200;

function endpoints(ctx: RunContext) {
  if (!ctx.callbacks)
    throw tagged(
      "SystemError",
      "callback endpoints are not available: the runner was started without RunOptions.callbacks",
    );
  return ctx.callbacks;
}

export function createCallbackEndpoint(args: ReadonlyMap<string, WfValue>, ctx: RunContext): WfValue {
  const method = args.get("http_callback_method") ?? "POST";
  if (typeof method !== "string")
    throw tagged("TypeError", `http_callback_method must be a string, got ${typeName(method)}`);
  if (!METHODS.has(method))
    throw tagged("ValueError", `http_callback_method must be one of ${[...METHODS].join(", ")}`);
  return mapOf({ url: endpoints(ctx).create(method) });
}

export async function awaitCallback(args: ReadonlyMap<string, WfValue>, ctx: RunContext): Promise<WfValue> {
  const callback = args.get("callback") ?? null;
  if (!isMap(callback)) throw tagged("TypeError", `callback must be a map, got ${typeName(callback)}`);
  const url = callback.get("url");
  if (typeof url !== "string")
    throw tagged("ValueError", "callback has no url: pass the result of events.create_callback_endpoint");
  const timeout = args.get("timeout") ?? DEFAULT_TIMEOUT_SECONDS;
  if (!isNumber(timeout)) throw tagged("TypeError", `timeout must be a number, got ${typeName(timeout)}`);
  const seconds = numberValue(timeout);
  if (!(seconds > 0)) throw tagged("ValueError", "timeout must be positive");
  const request = await endpoints(ctx).wait(url, seconds * 1000, ctx.signal);
  ctx.checkDeadline();
  if (!request) throw tagged("TimeoutError", `no callback arrived at ${url} within ${seconds} s`);
  return mapOf({
    http_request: fromJs({
      body: request.body ?? null,
      headers: request.headers,
      method: request.method,
      query: request.query,
      url: request.url,
    }),
    received_time: formatTimestamp(request.receivedAtMs / 1000, ""),
    type: "HTTP",
  });
}
