import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An HTTP proxy between the workflow and one function server that can lose what a real
 * network loses. Unlike test/helpers/fault-proxy.ts (which fails a call before it reaches
 * the function), `lose` lets the function do its work and then withholds the answer, which
 * is what a timeout or a dropped connection looks like to the caller: the effect happened,
 * the caller does not know, and its retry must not repeat the effect.
 *
 * - forward: pass the call through.
 * - reject: answer `status` without forwarding (an overloaded instance).
 * - lose: forward, wait for the function's answer, then answer `status` instead (a gateway
 *   timeout after the work was done).
 * - drop: forward, wait for the answer, then destroy the connection (the caller sees a
 *   connection error, as when an instance dies after committing).
 */
export type ProxyAction =
  | { kind: "forward" }
  | { kind: "reject"; status: number }
  | { kind: "lose"; status: number }
  | { kind: "drop" };

export interface ProxiedCall {
  body: unknown;
  action: ProxyAction["kind"];
  /** The function's own status (undefined when the call was not forwarded or it failed). */
  upstreamStatus: number | undefined;
  upstreamBody: unknown;
  /** What the caller got: a status, or "dropped"/"upstream-error". */
  answered: number | "dropped" | "upstream-error";
}

export interface HttpFaultProxy {
  url: string;
  calls: ProxiedCall[];
  /** Changes the policy for the calls that arrive from now on. */
  setPolicy(policy: (body: unknown, seen: number) => ProxyAction): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parse(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return text;
  }
}

export async function startHttpFaultProxy(
  target: () => string,
  initial: (body: unknown, seen: number) => ProxyAction = () => ({ kind: "forward" }),
): Promise<HttpFaultProxy> {
  const calls: ProxiedCall[] = [];
  let policy = initial;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const body = parse(text);
      const action = policy(body, calls.length);
      const call: ProxiedCall = {
        body,
        action: action.kind,
        upstreamStatus: undefined,
        upstreamBody: undefined,
        answered: 0,
      };
      calls.push(call);
      if (action.kind === "reject") {
        call.answered = action.status;
        res.writeHead(action.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: "injected", message: "rejected by the test proxy" } }));
        return;
      }
      let upstream: Response;
      let answer: string;
      try {
        upstream = await fetch(`${target()}${req.url ?? "/"}`, {
          method: req.method ?? "POST",
          headers: {
            "content-type": req.headers["content-type"] ?? "application/json",
            // The caller's ID token passes through, as it would over any network hop (the gate checks it).
            ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
          },
          ...(text ? { body: text } : {}),
        });
        answer = await upstream.text();
      } catch {
        // The function died under the call: the caller sees the connection break.
        call.answered = "upstream-error";
        res.socket?.destroy();
        return;
      }
      call.upstreamStatus = upstream.status;
      call.upstreamBody = parse(answer);
      if (action.kind === "drop") {
        call.answered = "dropped";
        res.socket?.destroy();
        return;
      }
      const status = action.kind === "lose" ? action.status : upstream.status;
      call.answered = status;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(action.kind === "lose" ? JSON.stringify({ error: { code: "injected_timeout" } }) : answer);
    })().catch(() => {
      res.socket?.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    setPolicy(next) {
      policy = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
