import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for the three Google REST methods ferret's response actions call, with
 * recorded state and the APIs' optimistic-concurrency answers: Compute's setTags refuses a stale
 * tags fingerprint with 412 conditionNotMet, Resource Manager's setIamPolicy refuses a stale
 * etag with 409 ABORTED, and an unknown key, instance or project is a 404 NOT_FOUND. Paths and
 * bodies follow the REST references (IAM v1 projects.serviceAccounts.keys, Compute v1
 * instances, Resource Manager v3 projects), so Google's client libraries, given its root URL,
 * send their real requests. Tests and the local stack use it; it is never deployed.
 */

export interface StandInKey {
  name: string;
  disabled?: boolean;
  keyType?: string;
}
export interface StandInInstance {
  project: string;
  zone: string;
  name: string;
  id: string;
  tags: string[];
}
export interface StandInPolicy {
  version?: number;
  bindings: { role: string; members: string[]; condition?: { expression: string; title?: string } }[];
}

export interface ResponseActionsSeed {
  keys?: StandInKey[];
  instances?: StandInInstance[];
  /** Keyed by `projects/<id or number>`. */
  policies?: Record<string, StandInPolicy>;
}

export interface StandInCall {
  method: string;
  path: string;
  body?: unknown;
  status: number;
}

export interface ResponseActionsStandIn {
  /** The root URL to hand the client libraries (rootUrl). */
  readonly rootUrl: string;
  readonly calls: StandInCall[];
  key(name: string): StandInKey | undefined;
  instance(
    project: string,
    zone: string,
    nameOrId: string,
  ): (StandInInstance & { fingerprint: string }) | undefined;
  policy(project: string): (StandInPolicy & { etag: string }) | undefined;
  /** Someone else changes the instance's tags or the policy now: the next stale write conflicts. */
  touchInstance(project: string, zone: string, nameOrId: string): void;
  touchPolicy(project: string): void;
  close(): Promise<void>;
}

interface InstanceState extends StandInInstance {
  fingerprint: string;
}
interface PolicyState extends StandInPolicy {
  etag: string;
}

function token(seed: string): string {
  return createHash("sha256").update(seed).digest("base64").slice(0, 12);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8" });
  res.end(JSON.stringify(body));
}

/** Google's JSON error envelope (google.rpc.Status in the REST error format). */
function sendError(
  res: ServerResponse,
  status: number,
  grpcStatus: string,
  message: string,
  reason?: string,
): void {
  sendJson(res, status, {
    error: {
      code: status,
      message,
      status: grpcStatus,
      ...(reason ? { errors: [{ message, domain: "global", reason }] } : {}),
    },
  });
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

const KEY_GET = /^\/v1\/(projects\/[^/]+\/serviceAccounts\/[^/]+\/keys\/[^/:]+)$/;
const KEY_DISABLE = /^\/v1\/(projects\/[^/]+\/serviceAccounts\/[^/]+\/keys\/[^/:]+):disable$/;
const INSTANCE_GET = /^\/compute\/v1\/projects\/([^/]+)\/zones\/([^/]+)\/instances\/([^/]+)$/;
const INSTANCE_SET_TAGS = /^\/compute\/v1\/projects\/([^/]+)\/zones\/([^/]+)\/instances\/([^/]+)\/setTags$/;
const POLICY = /^\/v3\/(projects\/[^/:]+):(getIamPolicy|setIamPolicy)$/;

export async function startResponseActionsStandIn(
  seed: ResponseActionsSeed = {},
): Promise<ResponseActionsStandIn> {
  let counter = 0;
  const keys = new Map((seed.keys ?? []).map((k) => [k.name, { ...k }]));
  const instances: InstanceState[] = (seed.instances ?? []).map((i) => ({
    ...i,
    tags: [...i.tags],
    fingerprint: token(`${i.id}:${counter++}`),
  }));
  const policies = new Map<string, PolicyState>(
    Object.entries(seed.policies ?? {}).map(([p, policy]) => [
      p,
      { ...structuredClone(policy), etag: `BwX${token(`${p}:${counter++}`)}` },
    ]),
  );
  const calls: StandInCall[] = [];
  const findInstance = (project: string, zone: string, nameOrId: string) =>
    instances.find(
      (i) => i.project === project && i.zone === zone && (i.name === nameOrId || i.id === nameOrId),
    );
  const instanceJson = (i: InstanceState) => ({
    kind: "compute#instance",
    id: i.id,
    name: i.name,
    zone: `https://www.googleapis.com/compute/v1/projects/${i.project}/zones/${i.zone}`,
    status: "RUNNING",
    tags: { ...(i.tags.length > 0 ? { items: i.tags } : {}), fingerprint: i.fingerprint },
  });
  const policyJson = (p: PolicyState) => ({
    ...(p.version !== undefined ? { version: p.version } : {}),
    etag: p.etag,
    bindings: p.bindings,
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://stand-in").pathname);
    const body = req.method === "POST" ? await readBody(req) : undefined;
    const on = (method: string, route: RegExp): RegExpExecArray | null =>
      req.method === method ? route.exec(path) : null;
    let m: RegExpExecArray | null = on("GET", KEY_GET);
    if (m) {
      const key = keys.get(m[1]!);
      if (!key) return fail(res, 404, "NOT_FOUND", `Service account key ${m[1]} does not exist.`);
      sendJson(res, 200, {
        name: key.name,
        disabled: key.disabled === true,
        keyType: key.keyType ?? "USER_MANAGED",
      });
      return 200;
    }
    m = on("POST", KEY_DISABLE);
    if (m) {
      const key = keys.get(m[1]!);
      if (!key) return fail(res, 404, "NOT_FOUND", `Service account key ${m[1]} does not exist.`);
      key.disabled = true;
      sendJson(res, 200, {});
      return 200;
    }
    m = on("GET", INSTANCE_GET);
    if (m) {
      const i = findInstance(m[1]!, m[2]!, m[3]!);
      if (!i)
        return fail(
          res,
          404,
          "NOT_FOUND",
          `The resource 'projects/${m[1]}/zones/${m[2]}/instances/${m[3]}' was not found`,
          "notFound",
        );
      sendJson(res, 200, instanceJson(i));
      return 200;
    }
    m = on("POST", INSTANCE_SET_TAGS);
    if (m) {
      const i = findInstance(m[1]!, m[2]!, m[3]!);
      if (!i)
        return fail(
          res,
          404,
          "NOT_FOUND",
          `The resource 'projects/${m[1]}/zones/${m[2]}/instances/${m[3]}' was not found`,
          "notFound",
        );
      const tags = body as { items?: string[]; fingerprint?: string } | undefined;
      if (!tags?.fingerprint || tags.fingerprint !== i.fingerprint)
        return fail(
          res,
          412,
          "FAILED_PRECONDITION",
          "Supplied fingerprint does not match current metadata fingerprint.",
          "conditionNotMet",
        );
      i.tags = [...(tags.items ?? [])];
      i.fingerprint = token(`${i.id}:${counter++}`);
      sendJson(res, 200, {
        kind: "compute#operation",
        name: `operation-${counter}-settags`,
        operationType: "setTags",
        targetLink: `https://www.googleapis.com/compute/v1/projects/${i.project}/zones/${i.zone}/instances/${i.name}`,
        status: "DONE",
        progress: 100,
      });
      return 200;
    }
    m = on("POST", POLICY);
    if (m) {
      const p = policies.get(m[1]!);
      if (!p) return fail(res, 404, "NOT_FOUND", `Project '${m[1]}' not found or permission denied.`);
      if (m[2] === "getIamPolicy") {
        sendJson(res, 200, policyJson(p));
        return 200;
      }
      const next = (body as { policy?: StandInPolicy & { etag?: string } } | undefined)?.policy;
      if (!next)
        return fail(
          res,
          400,
          "INVALID_ARGUMENT",
          "Request contains an invalid argument: policy is required.",
        );
      // An etag-less write would overwrite blindly; the API allows it, ferret never sends one.
      if (next.etag !== undefined && next.etag !== p.etag)
        return fail(
          res,
          409,
          "ABORTED",
          "There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff.",
        );
      p.bindings = structuredClone(next.bindings ?? []);
      if (next.version !== undefined) p.version = next.version;
      p.etag = `BwX${token(`${m[1]}:${counter++}`)}`;
      sendJson(res, 200, policyJson(p));
      return 200;
    }
    return fail(res, 404, "NOT_FOUND", `${req.method} ${path} is not in the stand-in`);
  }

  function fail(
    res: ServerResponse,
    status: number,
    grpcStatus: string,
    message: string,
    reason?: string,
  ): number {
    sendError(res, status, grpcStatus, message, reason);
    return status;
  }

  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    const method = req.method ?? "GET";
    handle(req, res)
      .then((status) => calls.push({ method, path: decodeURIComponent(path.split("?")[0]!), status }))
      .catch((error: unknown) => {
        sendError(res, 400, "INVALID_ARGUMENT", error instanceof Error ? error.message : String(error));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    rootUrl: `http://127.0.0.1:${port}/`,
    calls,
    key: (name) => {
      const k = keys.get(name);
      return k ? { ...k } : undefined;
    },
    instance: (project, zone, nameOrId) => {
      const i = findInstance(project, zone, nameOrId);
      return i ? structuredClone(i) : undefined;
    },
    policy: (project) => {
      const p = policies.get(project);
      return p ? structuredClone(p) : undefined;
    },
    touchInstance: (project, zone, nameOrId) => {
      const i = findInstance(project, zone, nameOrId);
      if (i) i.fingerprint = token(`${i.id}:${counter++}`);
    },
    touchPolicy: (project) => {
      const p = policies.get(project);
      if (p) p.etag = `BwX${token(`${project}:${counter++}`)}`;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
