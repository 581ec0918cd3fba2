/**
 * Observing the Google API calls a function makes, at the wire. Each function gets its own
 * recording proxy in front of every Google endpoint it may reach (the Firestore and Pub/Sub
 * emulators, the SCC stand-in: gRPC over plaintext HTTP/2; the Workflows executions service,
 * the Gemini stand-in, the IAM/Compute/Resource Manager stand-in and the functions themselves:
 * HTTP/1.1), so every request arriving at a proxy was made by that proxy's identity. A proxy
 * forwards bytes unchanged and notes the RPC path or the HTTP method and path, the resource the
 * request names, and for Firestore writes the kind of each write (create, update, upsert,
 * delete), since each needs a different permission. Nothing in the functions knows.
 */
import { readFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import {
  type ClientHttp2Session,
  connect,
  createServer as createH2Server,
  type IncomingHttpHeaders as H2Headers,
  type Http2Server,
  constants as h2,
  type ServerHttp2Session,
} from "node:http2";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";
import { fromRoot } from "../../../functions/src/platform/paths.js";

export interface ObservedCall {
  /** The identity the caller runs as: a key of Terraform's local.service_accounts. */
  identity: string;
  /** The API's service name, e.g. firestore.googleapis.com. */
  api: string;
  /** The gRPC method (`google.firestore.v1.Firestore/Commit`) or `VERB /path`. */
  method: string;
  /** The resource the request names (a database, a topic, a workflow, a finding…). */
  resource: string;
  /** Refinements the permission depends on: Firestore write kinds. */
  variants: string[];
}

export type Recorder = (call: ObservedCall) => void;

export interface RecordingProxy {
  /** host:port for gRPC proxies, http://host:port for HTTP ones. */
  address: string;
  close(): Promise<void>;
}

// The request messages of the gRPC methods whose body the permission depends on, from the
// clients' own descriptors (@google-cloud/firestore build/protos/v1.json).
const firestoreProtos = protobuf.Root.fromJSON(
  JSON.parse(readFileSync(fromRoot("node_modules/@google-cloud/firestore/build/protos/v1.json"), "utf8")),
);
const COMMIT_REQUEST = firestoreProtos.lookupType("google.firestore.v1.CommitRequest");
const BATCH_WRITE_REQUEST = firestoreProtos.lookupType("google.firestore.v1.BatchWriteRequest");

interface DecodedWrite {
  update?: unknown;
  delete?: string;
  transform?: unknown;
  currentDocument?: { exists?: boolean; updateTime?: unknown };
}

/**
 * The kind of each write, as the Firestore permission table tells them apart: an update or
 * transform whose precondition says the document must not exist creates, one that must exist
 * (or has an update time) updates, one without a precondition may do either; a delete deletes.
 */
export function writeKinds(writes: readonly DecodedWrite[]): string[] {
  return writes.map((w) => {
    if (w.delete) return "delete";
    const pre = w.currentDocument;
    if (pre?.exists === false) return "create";
    if (pre?.exists === true || pre?.updateTime) return "update";
    return "upsert";
  });
}

/** gRPC length-prefixed messages (uncompressed: the clients here send none compressed). */
function grpcMessages(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at + 5 <= body.length) {
    const length = body.readUInt32BE(at + 1);
    out.push(body.subarray(at + 5, at + 5 + length));
    at += 5 + length;
  }
  return out;
}

function grpcVariants(path: string, body: Buffer): string[] {
  const type = path.endsWith("/Commit")
    ? COMMIT_REQUEST
    : path.endsWith("/BatchWrite")
      ? BATCH_WRITE_REQUEST
      : undefined;
  if (!type) return [];
  const kinds = grpcMessages(body).flatMap((m) => {
    const decoded = type.toObject(type.decode(m), { defaults: false }) as { writes?: DecodedWrite[] };
    return decoded.writes?.length ? writeKinds(decoded.writes) : ["empty"];
  });
  return [...new Set(kinds)].sort();
}

/** The resource a Google client names in its routing header (x-goog-request-params). */
function routedResource(headers: H2Headers): string {
  const params = headers["x-goog-request-params"];
  const text = Array.isArray(params) ? params.join("&") : (params ?? "");
  const values = [...new URLSearchParams(text).values()];
  if (values[0]) return values[0];
  const prefix = headers["google-cloud-resource-prefix"];
  return typeof prefix === "string" ? prefix : "";
}

/** A plaintext HTTP/2 proxy for gRPC: streams pass through unchanged, trailers included. */
export async function startGrpcRecorder(options: {
  upstream: string;
  identity: string;
  api: string;
  record: Recorder;
}): Promise<RecordingProxy> {
  let session: ClientHttp2Session | undefined;
  const upstreamSession = (): ClientHttp2Session => {
    if (!session || session.closed || session.destroyed) {
      session = connect(`http://${options.upstream}`);
      session.on("error", () => {});
    }
    return session;
  };
  const server: Http2Server = createH2Server();
  // http2 servers close only when every session has: keep them to end them on close.
  const sessions = new Set<ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  server.on("sessionError", () => {});
  server.on("stream", (stream, headers) => {
    stream.on("error", () => {});
    const path = String(headers[":path"] ?? "");
    const call: ObservedCall = {
      identity: options.identity,
      api: options.api,
      method: path.replace(/^\//, ""),
      resource: routedResource(headers),
      variants: [],
    };
    options.record(call);
    const forwarded: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined || name === ":authority" || name === ":scheme") continue;
      forwarded[name] = value as string | string[];
    }
    const up = upstreamSession().request(forwarded);
    const body: Buffer[] = [];
    let trailers: Record<string, string | string[]> = {};
    stream.on("data", (chunk: Buffer) => {
      body.push(chunk);
      up.write(chunk);
    });
    stream.on("end", () => {
      up.end();
      call.variants = grpcVariants(path, Buffer.concat(body));
    });
    stream.on("close", () => {
      if (!up.closed) up.close(h2.NGHTTP2_CANCEL);
    });
    up.on("response", (responseHeaders) => {
      const out = { ...responseHeaders } as Record<string, string | string[]>;
      // A trailers-only answer (an error) carries grpc-status in its headers and nothing after.
      if ("grpc-status" in out) stream.respond(out, { endStream: false });
      else stream.respond(out, { waitForTrailers: true });
    });
    up.on("trailers", (t) => {
      trailers = { ...t } as Record<string, string | string[]>;
    });
    stream.on("wantTrailers", () => stream.sendTrailers(trailers));
    up.on("data", (chunk: Buffer) => stream.write(chunk));
    up.on("end", () => stream.end());
    up.on("error", () => {
      if (!stream.closed) stream.close(h2.NGHTTP2_INTERNAL_ERROR);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      session?.destroy();
      for (const s of sessions) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * An HTTP/1.1 proxy. `resourceOf` names the resource from the path (each REST API writes its
 * resource names into the URL); by default the path without query and version prefix.
 */
export async function startHttpRecorder(options: {
  /** The upstream base URL, or a function giving it at request time (it may listen later). */
  upstream: string | (() => string);
  identity: string;
  api: string;
  record: Recorder;
  resourceOf?: (path: string, headers: IncomingHttpHeaders) => string;
}): Promise<RecordingProxy> {
  const server: Server = createServer((req, res) => {
    const target = new URL(typeof options.upstream === "string" ? options.upstream : options.upstream());
    const path = new URL(req.url ?? "/", "http://local").pathname;
    options.record({
      identity: options.identity,
      api: options.api,
      method: `${req.method ?? "GET"} ${path}`,
      resource: options.resourceOf ? options.resourceOf(path, req.headers) : path,
      variants: [],
    });
    const up = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        answer.on("error", () => res.destroy());
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on("error", (error) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`recording proxy: upstream failed: ${error.message}`);
    });
    // A caller that hangs up (a timeout, a process stopped) ends the exchange, nothing more.
    req.on("error", () => up.destroy());
    res.on("error", () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    address: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
