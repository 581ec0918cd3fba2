import { MetricExporter } from "@google-cloud/opentelemetry-cloud-monitoring-exporter";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { GoogleAuth } from "google-auth-library";
import type { CloudExporters } from "./telemetry.js";

/**
 * Where ferret's deployed spans and metrics are written (docs/decisions/0055).
 *
 * Spans: OpenTelemetry's own OTLP exporter (http/protobuf) to the Telemetry API, as Google's
 * "Migrate from the Trace exporter to the OTLP endpoint" shows for Node.js
 * (https://docs.cloud.google.com/trace/docs/migrate-to-otlp-endpoints): the request carries
 * google-auth-library's application default credentials (the function's service account, which
 * holds roles/telemetry.tracesWriter, terraform/iam.tf), and the project is the resource's
 * `gcp.project_id` (platform/telemetry.ts). The path is OTLP/HTTP's `/v1/traces` on the API's
 * root (https://docs.cloud.google.com/stackdriver/docs/reference/telemetry/overview).
 *
 * The credentials are asked for on every export, not once at start as Google's sample does
 * (GoogleCloudPlatform/opentelemetry-operations-js samples/otlptraceexport): an access token
 * lasts about an hour and an instance may live longer; google-auth-library caches the token and
 * refreshes it near expiry. The exporter calls its `headers` function before each request
 * (@opentelemetry/otlp-exporter-base 0.223.1, src/transport/http-exporter-transport.ts).
 * The gRPC variant of the sample was not taken: @grpc/grpc-js 1.14's createFromGoogleCredential
 * copies the headers with Object.keys, which finds nothing in the `Headers` object that
 * google-auth-library 10 returns, so no Authorization would be sent.
 *
 * Metrics: Google's Cloud Monitoring exporter (GoogleCloudPlatform/opentelemetry-operations-js at
 * 723facc4a9dbe3b0d620d9838dd142f64fe403f0, packages/opentelemetry-cloud-monitoring-exporter/src/
 * monitoring.ts and transform.ts): it creates a metric descriptor once per metric and writes time
 * series under `workload.googleapis.com/<instrument name>` (roles/monitoring.metricWriter allows
 * both); a histogram becomes a DISTRIBUTION, a monotonic sum a CUMULATIVE metric. It is deprecated
 * upstream; why it stays for now is in 0055.
 */

/** The Telemetry API's OTLP/HTTP endpoint for traces. */
export const TELEMETRY_API_TRACES_URL = "https://telemetry.googleapis.com/v1/traces";

const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

/** What the span exporter needs of google-auth-library: fresh request headers. */
export interface RequestHeaderSource {
  getRequestHeaders(url?: string): Promise<Headers>;
}

/** An OTLP span exporter whose every request carries the headers `auth` gives at that moment. */
export function telemetryApiSpanExporter(
  auth: RequestHeaderSource,
  url: string = TELEMETRY_API_TRACES_URL,
): SpanExporter {
  return new OTLPTraceExporter({
    url,
    headers: async () => {
      const fresh: Record<string, string> = {};
      (await auth.getRequestHeaders(url)).forEach((value, name) => {
        fresh[name] = value;
      });
      return fresh;
    },
  });
}

export const googleCloudExporters: CloudExporters = {
  spans: () => telemetryApiSpanExporter(new GoogleAuth({ scopes: CLOUD_PLATFORM_SCOPE })),
  metrics: (projectId) => new MetricExporter({ projectId }),
};
