import { type HttpRequest, type HttpResponse, type HttpTransport, HttpTransportError } from "./options.js";

// Error codes meaning the connection was never established (Workflows: ConnectionFailedError).
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function errorCode(err: unknown): string | undefined {
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause && typeof cause === "object" && "code" in cause && typeof cause.code === "string")
    return cause.code;
  return undefined;
}

function classify(err: unknown): HttpTransportError {
  const code = errorCode(err);
  const detail = code ?? (err instanceof Error ? err.message : String(err));
  if (code && NOT_CONNECTED.has(code))
    return new HttpTransportError("connection-failed", `connection failed: ${detail}`);
  return new HttpTransportError("connection", `connection error: ${detail}`);
}

/** The default transport: Node's global fetch (redirects followed, body read as text). */
export const fetchTransport: HttpTransport = async (request: HttpRequest): Promise<HttpResponse> => {
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal: request.signal,
    });
  } catch (err) {
    throw classify(err);
  }
  let body: string;
  try {
    body = await response.text();
  } catch (err) {
    // The response started but the body was cut off: the connection broke mid-transfer.
    throw new HttpTransportError("connection", `connection error while reading the response: ${String(err)}`);
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  return { status: response.status, headers, body };
};
