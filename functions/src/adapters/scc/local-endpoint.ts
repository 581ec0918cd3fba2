import { ConfigError } from "../../domain/errors.js";
import type { SccClientOptions } from "./scc-findings.js";

/**
 * Client options for a local SCC stand-in at `host:port` (FERRET_SCC_API_ENDPOINT, set by the
 * local stack for the demo): plaintext gRPC to that address, no Google credentials. The
 * official client then sends its real request shapes to the stand-in.
 */
export async function localSccClientOptions(endpoint: string): Promise<SccClientOptions> {
  const match = /^(127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})$/.exec(endpoint.trim());
  if (!match) {
    throw new ConfigError(
      `FERRET_SCC_API_ENDPOINT=${JSON.stringify(endpoint)} must be a loopback host:port (a local stand-in), e.g. 127.0.0.1:50051`,
    );
  }
  // Loaded only here: a deployed function never talks plaintext gRPC.
  const grpc = await import("@grpc/grpc-js");
  return { apiEndpoint: match[1], port: Number(match[2]), sslCreds: grpc.credentials.createInsecure() };
}
