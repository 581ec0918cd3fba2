import { EXPRESSION_FUNCTIONS } from "./functions.js";

/** Named arguments accepted by a standard-library call step. */
export interface CallSignature {
  readonly params: readonly string[];
  readonly required: readonly string[];
  /** Blocking calls (HTTP, sleep, log) may only appear as call steps. */
  readonly blocking: boolean;
}

// private_service_name and ca_certificate exist in Workflows but have no local meaning,
// so they are left out and rejected at load time like any unknown argument.
const HTTP_PARAMS = ["url", "headers", "body", "query", "auth", "timeout"] as const;

export const HTTP_METHOD_CALLS: ReadonlyMap<string, string> = new Map([
  ["http.get", "GET"],
  ["http.post", "POST"],
  ["http.put", "PUT"],
  ["http.patch", "PATCH"],
  ["http.delete", "DELETE"],
]);

function blockingSignatures(): [string, CallSignature][] {
  const http: [string, CallSignature][] = [...HTTP_METHOD_CALLS.keys()].map((name) => [
    name,
    { params: HTTP_PARAMS, required: ["url"], blocking: true },
  ]);
  return [
    ...http,
    ["http.request", { params: ["method", ...HTTP_PARAMS], required: ["method", "url"], blocking: true }],
    ["sys.sleep", { params: ["seconds"], required: ["seconds"], blocking: true }],
    ["sys.log", { params: ["data", "severity", "text", "json", "timeout"], required: [], blocking: true }],
    ["events.create_callback_endpoint", { params: ["http_callback_method"], required: [], blocking: true }],
    ["events.await_callback", { params: ["callback", "timeout"], required: ["callback"], blocking: true }],
  ];
}

function functionSignatures(): [string, CallSignature][] {
  return [...EXPRESSION_FUNCTIONS]
    .filter(([, spec]) => spec.callable)
    .map(([name, spec]) => [
      name,
      { params: spec.params, required: spec.params.slice(0, spec.required), blocking: false },
    ]);
}

export const CALL_SIGNATURES: ReadonlyMap<string, CallSignature> = new Map([
  ...blockingSignatures(),
  ...functionSignatures(),
]);
