import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import type { SccClientOptions } from "../adapters/scc/scc-findings.js";

/**
 * A local stand-in for the Security Command Center API: a gRPC server built from the very
 * .proto files @google-cloud/security-center ships (v1 and v2 SecurityCenter services), so the
 * official client, pointed at it with apiEndpoint/port and insecure credentials, sends its real
 * request shapes. It records SetMute, SetFindingState and UpdateSecurityMarks and answers the
 * way the API does (the updated Finding or SecurityMarks); everything else is UNIMPLEMENTED.
 */

export interface SccCall {
  version: "v1" | "v2";
  method: "SetMute" | "SetFindingState" | "UpdateSecurityMarks";
  request: Record<string, unknown>;
}

export interface SccStandIn {
  readonly calls: SccCall[];
  /** Client options for SecurityCenterFindings. */
  readonly clientOptions: SccClientOptions;
  /** Answer the next call with this gRPC status code (e.g. 14 UNAVAILABLE). */
  failNext(code: grpc.status): void;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
const SCC_PROTOS = join(
  dirname(require.resolve("@google-cloud/security-center/package.json")),
  "build/protos",
);
const GAX_PROTOS = join(dirname(dirname(require.resolve("google-gax"))), "..", "build/protos");

type Handler = grpc.handleUnaryCall<Record<string, unknown>, Record<string, unknown>>;

export async function startSccStandIn(): Promise<SccStandIn> {
  const calls: SccCall[] = [];
  const failures: grpc.status[] = [];
  const server = new grpc.Server();
  for (const version of ["v1", "v2"] as const) {
    const definition = protoLoader.loadSync(
      `google/cloud/securitycenter/${version}/securitycenter_service.proto`,
      {
        includeDirs: [SCC_PROTOS, GAX_PROTOS],
        keepCase: false,
        longs: String,
        enums: String,
        defaults: false,
        oneofs: true,
      },
    );
    const loaded = grpc.loadPackageDefinition(definition) as unknown as {
      google: {
        cloud: { securitycenter: Record<string, { SecurityCenter: { service: grpc.ServiceDefinition } }> };
      };
    };
    const service = loaded.google.cloud.securitycenter[version]?.SecurityCenter.service;
    if (!service) throw new Error(`no SecurityCenter service in the ${version} protos`);
    const record =
      (
        method: SccCall["method"],
        answer: (req: Record<string, unknown>) => Record<string, unknown>,
      ): Handler =>
      (call, callback) => {
        const failure = failures.shift();
        if (failure !== undefined) {
          callback({ code: failure, details: "scripted failure" });
          return;
        }
        calls.push({ version, method, request: call.request });
        callback(null, answer(call.request));
      };
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const name of Object.keys(service)) {
      implementation[name] = ((_call, callback) =>
        callback({ code: grpc.status.UNIMPLEMENTED, details: `${name} is not in the stand-in` })) as Handler;
    }
    implementation.SetMute = record("SetMute", (r) => ({ name: r.name, mute: r.mute }));
    implementation.SetFindingState = record("SetFindingState", (r) => ({ name: r.name, state: r.state }));
    implementation.UpdateSecurityMarks = record("UpdateSecurityMarks", (r) => ({
      ...(r.securityMarks as Record<string, unknown>),
    }));
    server.addService(service, implementation);
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, p) =>
      error ? reject(error) : resolve(p),
    ),
  );
  return {
    calls,
    clientOptions: { apiEndpoint: "127.0.0.1", port, sslCreds: grpc.credentials.createInsecure() },
    failNext: (code) => failures.push(code),
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
