/** One outgoing HTTP request, already encoded by the runner. */
export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborted on the per-call timeout or the execution deadline. */
  signal: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends a request. To simulate network failures, throw HttpTransportError; any
 * other exception is reported to the workflow as a ConnectionError.
 */
export type HttpTransport = (request: HttpRequest) => Promise<HttpResponse>;

/**
 * `connection-failed`: no connection was established (refused, DNS) -> ConnectionFailedError.
 * `connection`: the connection broke during the exchange -> ConnectionError.
 * `timeout`: the transport gave up waiting -> TimeoutError.
 */
export class HttpTransportError extends Error {
  override readonly name = "HttpTransportError";
  constructor(
    readonly kind: "connection-failed" | "connection" | "timeout",
    message: string,
  ) {
    super(message);
  }
}

export interface LogEntry {
  severity: string;
  /** Set for text payloads (`text`, or `data` that is not a map). */
  text?: string;
  /** Set for JSON payloads (`json`, or `data` that is a map), as plain JS. */
  json?: unknown;
  atMs: number;
}

export interface StepEvent {
  phase: "start" | "end";
  /** Step name as written in the YAML. */
  step: string;
  /** Location in the source, e.g. "main.steps[2].try.steps[0]". */
  path: string;
  /** Subworkflow the step belongs to ("main" for the main workflow). */
  routine: string;
  atMs: number;
  /** On "end": time spent in the step, including nested steps. */
  durationMs?: number;
  /** On "end" when the step failed: the Workflows error value as plain JS. */
  error?: unknown;
}

/** One HTTP request received at a callback endpoint. */
export interface CallbackRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  /** JSON-decoded when the request said application/json, else the text (null when empty). */
  body: unknown;
  receivedAtMs: number;
}

/**
 * Callback endpoints (events.create_callback_endpoint / events.await_callback). Whoever
 * provides them decides who may call them, the way Workflows checks the caller's IAM
 * permission (workflows.callbacks.send); see callback-server.ts for the local one.
 */
export interface CallbackEndpoints {
  /** A new endpoint for this execution, accepting only `method`; returns its URL. */
  create(method: string): string;
  /**
   * The first request the endpoint received (buffered if it came before the wait), or
   * undefined once `timeoutMs` passes or `signal` aborts.
   */
  wait(url: string, timeoutMs: number, signal: AbortSignal): Promise<CallbackRequest | undefined>;
}

export interface RunOptions {
  /** Values returned by sys.get_env (including GOOGLE_CLOUD_* built-ins if the caller wants them). */
  env: Record<string, string>;
  /** Defaults to a global fetch transport. */
  http?: HttpTransport;
  /** Used by sys.sleep and retry backoff; inject to make delays instant and observable. */
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch; defaults to Date.now. */
  now?: () => number;
  /** Overall execution budget; exceeding it fails the run like a Workflows execution timeout. */
  deadlineMs?: number;
  onLog?: (entry: LogEntry) => void;
  onStep?: (event: StepEvent) => void;
  /** Needed only by workflows that create callback endpoints. */
  callbacks?: CallbackEndpoints;
  /**
   * Mints the ID token an `auth: {type: OIDC}` request carries, for the given audience (the
   * workflow's service account in GCP). Without it such requests go out with no Authorization
   * header, as before there was a token to send.
   */
  idToken?: (audience: string) => Promise<string> | string;
}
