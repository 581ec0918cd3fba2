import { DeadlineExceededError, errorMap, RaisedError, tagged } from "../errors.js";
import { MAX_HTTP_RESPONSE_BYTES } from "../limits.js";
import { toText } from "../stdlib/convert.js";
import { decodeJson, encodeJson } from "../stdlib/json.js";
import { isList, isMap, isNumber, mapOf, numberValue, typeName, type WfValue } from "../values.js";
import type { RunContext } from "./context.js";
import { type HttpResponse, HttpTransportError } from "./options.js";

const DEFAULT_TIMEOUT_S = 300;
const MAX_TIMEOUT_S = 1800;

/** Implements http.get/post/put/patch/delete/request for a call step's named args. */
export async function httpCall(
  fixedMethod: string | null,
  args: ReadonlyMap<string, WfValue>,
  ctx: RunContext,
): Promise<WfValue> {
  const method = (fixedMethod ?? requireString(args.get("method") ?? null, "method")).toUpperCase();
  const url = buildUrl(requireString(args.get("url") ?? null, "url"), args.get("query") ?? null);
  const headers = buildHeaders(args.get("headers") ?? null);
  const auth = checkAuth(args.get("auth") ?? null);
  // Workflows attaches the workflow's ID token for the audience given, or the URL when none is
  // (https://cloud.google.com/workflows/docs/authenticate-from-workflow#invoke_cloud_run_or).
  if (auth?.type === "OIDC" && ctx.idToken)
    headers.Authorization = `Bearer ${await ctx.idToken(auth.audience ?? url)}`;
  const body = encodeBody(args.has("body") ? (args.get("body") ?? null) : undefined, headers);
  const timeoutMs = timeoutSeconds(args.get("timeout") ?? null) * 1000;

  const response = await ctx
    .block((signal) =>
      withTimeout(timeoutMs, signal, (requestSignal) =>
        ctx.http({ method, url, headers, ...(body !== undefined ? { body } : {}), signal: requestSignal }),
      ),
    )
    .catch((err: unknown) => {
      throw translateFailure(err);
    });

  const responseBytes = Buffer.byteLength(response.body);
  if (responseBytes > MAX_HTTP_RESPONSE_BYTES) {
    throw tagged(
      "ResourceLimitError",
      `HTTP response of ${responseBytes} bytes exceeds the ${MAX_HTTP_RESPONSE_BYTES}-byte limit`,
    );
  }
  const result = mapOf({
    code: response.status,
    headers: new Map(Object.entries(response.headers)),
    body: decodeBody(response),
  });
  // Only 4xx and 5xx raise HttpError; a 1xx-3xx response is a result like a 2xx.
  if (response.status < 400) return result;
  result.set("message", `HTTP server responded with error code ${response.status}`);
  result.set("tags", ["HttpError"]);
  throw new RaisedError(result);
}

function requireString(v: WfValue, what: string): string {
  if (typeof v !== "string") throw tagged("TypeError", `http ${what} must be a string, got ${typeName(v)}`);
  return v;
}

function buildUrl(base: string, query: WfValue): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw tagged("ValueError", `invalid URL ${JSON.stringify(base)}`);
  }
  if (query === null) return url.toString();
  if (!isMap(query)) throw tagged("TypeError", `http query must be a map, got ${typeName(query)}`);
  for (const [key, value] of query) {
    for (const item of isList(value) ? value : [value])
      url.searchParams.append(key, scalarText(item, `query.${key}`));
  }
  return url.toString();
}

function scalarText(v: WfValue, what: string): string {
  if (typeof v === "string") return v;
  if (typeof v === "boolean" || isNumber(v)) return toText(v);
  throw tagged("TypeError", `http ${what} must be a string, number or boolean, got ${typeName(v)}`);
}

function buildHeaders(raw: WfValue): Record<string, string> {
  if (raw === null) return {};
  if (!isMap(raw)) throw tagged("TypeError", `http headers must be a map, got ${typeName(raw)}`);
  const headers: Record<string, string> = {};
  for (const [key, value] of raw) headers[key] = scalarText(value, `headers.${key}`);
  return headers;
}

// OIDC requests carry an ID token when the run was given a minter (RunOptions.idToken: the local
// stack signs one); OAuth2 access tokens are for Google APIs, which the runner never calls.
function checkAuth(raw: WfValue): { type: "OIDC" | "OAuth2"; audience?: string } | undefined {
  if (raw === null) return undefined;
  const type = isMap(raw) ? raw.get("type") : undefined;
  if (type !== "OIDC" && type !== "OAuth2") {
    throw tagged("TypeError", 'http auth must be a map whose type is "OIDC" or "OAuth2"');
  }
  const audience = isMap(raw) ? raw.get("audience") : undefined;
  if (audience === undefined || audience === null) return { type };
  if (typeof audience !== "string")
    throw tagged("TypeError", `http auth.audience must be a string, got ${typeName(audience)}`);
  return { type, audience };
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

/**
 * Without a Content-Type the body is JSON-encoded and the header set to JSON; with
 * one, the body is encoded as that type prescribes (JSON, form-urlencoded, or text).
 */
function encodeBody(body: WfValue | undefined, headers: Record<string, string>): string | undefined {
  if (body === undefined) return undefined;
  const contentType = headerValue(headers, "content-type");
  if (contentType === undefined) {
    headers["Content-Type"] = "application/json; charset=utf-8";
    return encodeJson(body);
  }
  const type = contentType.toLowerCase();
  if (type.includes("json")) return encodeJson(body);
  if (type.startsWith("application/x-www-form-urlencoded") && isMap(body)) {
    const form = new URLSearchParams();
    for (const [key, value] of body) form.append(key, scalarText(value, `body.${key}`));
    return form.toString();
  }
  if (typeof body === "string") return body;
  throw tagged("TypeError", `cannot encode a ${typeName(body)} body as ${contentType}`);
}

function timeoutSeconds(raw: WfValue): number {
  if (raw === null) return DEFAULT_TIMEOUT_S;
  if (!isNumber(raw)) throw tagged("TypeError", `http timeout must be a number, got ${typeName(raw)}`);
  const seconds = numberValue(raw);
  if (seconds <= 0 || seconds > MAX_TIMEOUT_S) {
    throw tagged("ValueError", `http timeout must be in (0, ${MAX_TIMEOUT_S}] seconds, got ${seconds}`);
  }
  return seconds;
}

/** Enforces the per-call timeout even against a transport that ignores its signal. */
async function withTimeout(
  timeoutMs: number,
  outer: AbortSignal,
  send: (signal: AbortSignal) => Promise<HttpResponse>,
): Promise<HttpResponse> {
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort();
  outer.addEventListener("abort", onOuterAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new HttpTransportError("timeout", "request timed out"));
    }, timeoutMs);
    // The request's own socket keeps the process alive; this timer only bounds it.
    timer.unref();
  });
  const pending = send(controller.signal);
  pending.catch(() => undefined);
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener("abort", onOuterAbort);
  }
}

function translateFailure(err: unknown): unknown {
  if (err instanceof HttpTransportError) return transportFailure(err);
  if (err instanceof RaisedError || err instanceof DeadlineExceededError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new RaisedError(errorMap(["ConnectionError"], `connection error: ${detail}`));
}

function transportFailure(err: HttpTransportError): RaisedError {
  switch (err.kind) {
    case "timeout":
      // Workflows reports timed-out requests with both tags (TimeoutError is an OSError).
      return new RaisedError(errorMap(["TimeoutError", "OSError"], err.message));
    case "connection-failed":
      // A connection that never opened is a ConnectionFailedError; the http.request
      // reference also lists DNS failures under ConnectionError, so both tags are set.
      return new RaisedError(errorMap(["ConnectionFailedError", "ConnectionError"], err.message));
    case "connection":
      return new RaisedError(errorMap(["ConnectionError"], err.message));
  }
}

/** JSON responses are decoded; everything else is returned as text. */
function decodeBody(response: HttpResponse): WfValue {
  const contentType = headerValue(response.headers, "content-type")?.toLowerCase() ?? "";
  const isJson = contentType.includes("application/json") || /\+json\b/.test(contentType);
  if (!isJson || response.body === "") return response.body;
  try {
    return decodeJson(response.body);
  } catch {
    return response.body;
  }
}
