import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { apiJsonToMessage, listFindingsResultType } from "../adapters/scc/proto-json.js";
import type { SccClientOptions } from "../adapters/scc/scc-findings.js";
import type { JsonObject } from "../domain/json.js";
import {
  FilterSyntaxError,
  matchesFilter,
  misusedOperators,
  parseFilter,
  unknownFields,
} from "./scc-filter.js";

/**
 * A local stand-in for the Security Command Center API: a gRPC server built from the very
 * .proto files @google-cloud/security-center ships (v1 and v2 SecurityCenter services), so the
 * official client, pointed at it with apiEndpoint/port and insecure credentials, sends its real
 * request shapes. It records SetMute, SetFindingState and UpdateSecurityMarks and answers the
 * way the API does (the updated Finding or SecurityMarks), and answers ListFindings from the
 * findings it is given (API JSON, e.g. recorded ones), evaluating the filter by the documented
 * syntax (scc-filter.ts: a malformed filter is INVALID_ARGUMENT, a field it does not model is
 * UNIMPLEMENTED) and checking the parent the way the API's resource patterns do; every other
 * method is UNIMPLEMENTED.
 */

export interface SccCall {
  version: "v1" | "v2";
  method: "SetMute" | "SetFindingState" | "UpdateSecurityMarks" | "ListFindings";
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

export interface SccStandInOptions {
  /**
   * Findings ListFindings can return, in the API's JSON: `{finding, resource?}` (a
   * NotificationMessage or ListFindingsResult shape) or a bare Finding. v1 or v2 by the name.
   */
  findings?: readonly JsonObject[];
  /** Sources (parents) whose findings the caller may not list: PERMISSION_DENIED, as IAM answers. */
  deniedParents?: readonly string[];
  /** Answer every ListFindings with this finding whatever was asked: a broken or hostile endpoint. */
  answerRegardless?: JsonObject;
}

// ListFindings' parent, from the v1 and v2 http bindings in securitycenter_service.proto:
// {organizations|folders|projects}/*/sources/* (v2 also …/locations/*); "-" lists every source.
const PARENT: Record<"v1" | "v2", RegExp> = {
  v1: /^(organizations|folders|projects)\/[^/]+\/sources\/[^/]+$/,
  v2: /^(organizations|folders|projects)\/[^/]+\/sources\/[^/]+(\/locations\/[^/]+)?$/,
};

/** Whether `findingParent` is listed under `requested` ("-" for every source). */
function underParent(findingParent: string, requested: string): boolean {
  const pattern = requested.replace(/\/sources\/-(?=\/|$)/, "/sources/[^/]+");
  const withLocation = /\/locations\//.test(requested) ? pattern : `${pattern}(/locations/global)?`;
  return new RegExp(`^${withLocation.replace(/\./g, "\\.")}$`).test(findingParent);
}

export async function startSccStandIn(options: SccStandInOptions = {}): Promise<SccStandIn> {
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
    const resultType = listFindingsResultType(version);
    implementation.ListFindings = ((call, callback) => {
      const request = call.request as { parent?: string; filter?: string; pageSize?: number };
      calls.push({ version, method: "ListFindings", request: call.request });
      const failure = failures.shift();
      if (failure !== undefined) return callback({ code: failure, details: "scripted failure" });
      const parent = request.parent ?? "";
      if (!PARENT[version].test(parent))
        return callback({ code: grpc.status.INVALID_ARGUMENT, details: `Invalid parent: ${parent}` });
      if (options.deniedParents?.includes(parent))
        return callback({
          code: grpc.status.PERMISSION_DENIED,
          details: `The caller does not have permission (securitycenter.findings.list on ${parent})`,
        });
      let filter: ReturnType<typeof parseFilter>;
      try {
        filter = parseFilter(request.filter ?? "");
      } catch (error) {
        const why = error instanceof FilterSyntaxError ? error.message : String(error);
        return callback({ code: grpc.status.INVALID_ARGUMENT, details: `Invalid filter: ${why}` });
      }
      const misused = misusedOperators(filter);
      if (misused.length > 0)
        return callback({
          code: grpc.status.INVALID_ARGUMENT,
          details: `Invalid filter: the operator is not supported for ${misused.join(", ")}`,
        });
      const unknown = unknownFields(filter);
      if (unknown.length > 0)
        return callback({
          code: grpc.status.UNIMPLEMENTED,
          details: `the stand-in does not filter on ${unknown.join(", ")}`,
        });
      const given = options.answerRegardless ? [options.answerRegardless] : (options.findings ?? []);
      const found = given
        .map((entry) => (entry.finding && typeof entry.finding === "object" ? entry : { finding: entry }))
        .filter((entry) => {
          const finding = entry.finding as Record<string, unknown> & { name?: string; parent?: string };
          const isV2 = /\/locations\//.test(finding.name ?? "");
          return (
            options.answerRegardless !== undefined ||
            (matchesFilter(filter, finding) &&
              isV2 === (version === "v2") &&
              underParent(finding.parent ?? "", parent))
          );
        })
        .slice(0, Math.max(1, request.pageSize ?? 10));
      const results = found.map((entry) =>
        apiJsonToMessage(resultType, {
          finding: entry.finding as JsonObject,
          ...(entry.resource && typeof entry.resource === "object"
            ? { resource: entry.resource as JsonObject }
            : {}),
        }),
      );
      callback(null, { listFindingsResults: results, nextPageToken: "", totalSize: results.length });
    }) as Handler;
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
