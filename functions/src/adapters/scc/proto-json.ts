import { createRequire } from "node:module";
import { fromProto3JSON, type JSONValue, toProto3JSON } from "proto3-json-serializer";
import protobuf from "protobufjs";
import type { JsonObject } from "../../domain/json.js";

/**
 * Between the official SCC client's message objects (gRPC, as @grpc/proto-loader decodes them:
 * Timestamps as {seconds, nanos}, Struct values as {kind, stringValue…}, every unset field at its
 * default) and the API's JSON (proto3 JSON mapping: RFC 3339 times, plain Struct values, enum
 * names, defaults left out) — the JSON a NotificationConfig delivers and ferret parses. The
 * conversion is Google's own serializer (proto3-json-serializer, what google-gax uses for its
 * REST transport) over the type definitions the client ships (build/protos/protos.json).
 */

const require = createRequire(import.meta.url);
let root: protobuf.Root | undefined;

function sccRoot(): protobuf.Root {
  root ??= protobuf.Root.fromJSON(
    require("@google-cloud/security-center/build/protos/protos.json") as protobuf.INamespace,
  );
  return root;
}

export type SccVersion = "v1" | "v2";

/** One ListFindings result (finding, resource, v1's stateChange) for `version`. */
export function listFindingsResultType(version: SccVersion): protobuf.Type {
  return sccRoot().lookupType(
    `google.cloud.securitycenter.${version}.ListFindingsResponse.ListFindingsResult`,
  );
}

/** A message object as the gRPC client returns it → the API's JSON. */
export function messageToApiJson(type: protobuf.Type, object: Record<string, unknown>): JsonObject {
  const message = type.fromObject(object);
  dropDefaults(message);
  return toProto3JSON(message) as JsonObject;
}

/** The API's JSON → a plain message object a gRPC server built with @grpc/proto-loader can send. */
export function apiJsonToMessage(type: protobuf.Type, json: JsonObject): Record<string, unknown> {
  const message = fromProto3JSON(type, json as JSONValue);
  if (!message) throw new Error(`not a ${type.fullName} in proto3 JSON`);
  return type.toObject(message, { longs: String, enums: String, oneofs: true });
}

/**
 * proto3 has no presence for plain scalars, repeated fields and maps: a field at its default
 * ("" , 0, false, the enum's 0 value, empty list or map) is the same as an unset one, and the
 * proto3 JSON mapping leaves it out. The gRPC client fills every one in, so they are removed
 * here, by each field's own definition, before the message is written as JSON.
 */
function dropDefaults(message: protobuf.Message): void {
  const type = (message as unknown as { $type: protobuf.Type }).$type;
  const record = message as unknown as Record<string, unknown>;
  for (const field of type.fieldsArray) {
    field.resolve();
    const value = record[field.name];
    if (value === undefined || value === null) continue;
    if (field.map) {
      const entries = value as Record<string, unknown>;
      if (Object.keys(entries).length === 0) delete record[field.name];
      else if (field.resolvedType instanceof protobuf.Type)
        for (const entry of Object.values(entries)) dropDefaults(entry as protobuf.Message);
    } else if (field.repeated) {
      const items = value as unknown[];
      if (items.length === 0) delete record[field.name];
      else if (field.resolvedType instanceof protobuf.Type)
        for (const item of items) dropDefaults(item as protobuf.Message);
    } else if (field.resolvedType instanceof protobuf.Type) {
      // Messages have presence: an empty one stays (securityMarks: {} is what the API sends).
      if (!isWellKnown(field.resolvedType)) dropDefaults(value as protobuf.Message);
    } else if (!field.options?.proto3_optional && isDefault(value, field)) {
      delete record[field.name];
    }
  }
}

function isWellKnown(type: protobuf.Type): boolean {
  return type.fullName.startsWith(".google.protobuf.");
}

function isDefault(value: unknown, field: protobuf.Field): boolean {
  if (field.resolvedType instanceof protobuf.Enum)
    return value === 0 || value === field.resolvedType.valuesById[0];
  if (typeof value === "string") return value === "";
  if (typeof value === "number") return value === 0;
  if (typeof value === "boolean") return value === false;
  if (value instanceof Uint8Array) return value.length === 0;
  // Longs (int64 fields) from protobufjs.
  if (typeof value === "object" && value !== null && "low" in value && "high" in value)
    return (value as { low: number; high: number }).low === 0 && (value as { high: number }).high === 0;
  return false;
}
