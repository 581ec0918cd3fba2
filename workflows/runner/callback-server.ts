import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { CallbackEndpoints, CallbackRequest } from "./runtime/options.js";

/**
 * Local callback endpoints for the runner. In Cloud Workflows a callback request must carry
 * an OAuth token of a principal holding workflows.callbacks.send (roles/workflows.invoker);
 * here `identify` turns the Authorization header into a principal (for example by verifying
 * a token, or a test's fixed map) and only `allowed` principals are accepted. Unknown
 * endpoint 404, wrong method 405, no identity 401, an identity without permission 403.
 */
export interface CallbackServerOptions {
  identify(authorization: string | undefined): Promise<string | undefined> | string | undefined;
  allowed: readonly string[];
}

/**
 * Identities by bearer token, the serializable form the local stack hands its executions
 * service (functions/src/local/identities.ts): `Authorization: Bearer <token>` is the principal
 * the token stands for; any other header, or an unknown token, is no identity (401).
 */
export interface BearerIdentities {
  /** Bearer token → principal. */
  principals: Readonly<Record<string, string>>;
  /** The principals allowed to call back. */
  allowed: readonly string[];
}

export function bearerTokenAccess(identities: BearerIdentities): CallbackServerOptions {
  return {
    identify(authorization) {
      const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
      return token !== undefined && Object.hasOwn(identities.principals, token)
        ? identities.principals[token]
        : undefined;
    },
    allowed: identities.allowed,
  };
}

export interface CallbackServer extends CallbackEndpoints {
  /** Every refused request, with its status and the principal when one was identified. */
  readonly refused: { status: number; principal?: string; url: string }[];
  close(): Promise<void>;
}

interface Endpoint {
  method: string;
  queue: CallbackRequest[];
  waiter?: (r: CallbackRequest) => void;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

function decode(text: string, contentType: string | undefined): unknown {
  if (text === "") return null;
  if (contentType && /[/+]json\b/i.test(contentType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

export async function startCallbackServer(options: CallbackServerOptions): Promise<CallbackServer> {
  const endpoints = new Map<string, Endpoint>();
  const refused: CallbackServer["refused"] = [];
  const server = createServer(async (req, res) => {
    const full = new URL(req.url ?? "/", base);
    const endpoint = endpoints.get(full.pathname);
    const refuse = (status: number, principal?: string) => {
      refused.push({ status, url: full.pathname, ...(principal ? { principal } : {}) });
      res
        .writeHead(status, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { code: status } }));
    };
    if (!endpoint) return refuse(404);
    if (req.method !== endpoint.method) return refuse(405);
    const principal = await options.identify(req.headers.authorization);
    if (!principal) return refuse(401);
    if (!options.allowed.includes(principal)) return refuse(403, principal);
    const body = await readBody(req);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
    const request: CallbackRequest = {
      method: req.method,
      url: full.pathname,
      headers,
      query: Object.fromEntries(full.searchParams),
      body: decode(body, req.headers["content-type"]),
      receivedAtMs: Date.now(),
    };
    if (endpoint.waiter) endpoint.waiter(request);
    else endpoint.queue.push(request);
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    refused,
    create(method) {
      const path = `/callbacks/${randomUUID()}`;
      endpoints.set(path, { method, queue: [] });
      return `${base}${path}`;
    },
    wait(url, timeoutMs, signal) {
      const endpoint = endpoints.get(new URL(url).pathname);
      if (!endpoint) return Promise.resolve(undefined);
      const first = endpoint.queue.shift();
      if (first) return Promise.resolve(first);
      return new Promise((resolve) => {
        const finish = (r: CallbackRequest | undefined) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          delete endpoint.waiter;
          resolve(r);
        };
        const onAbort = () => finish(undefined);
        const timer = setTimeout(() => finish(undefined), timeoutMs);
        signal.addEventListener("abort", onAbort, { once: true });
        endpoint.waiter = finish;
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
