import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { ExportResultCode } from "@opentelemetry/core";
import { AggregationTemporality, InMemoryMetricExporter } from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import {
  type RequestHeaderSource,
  TELEMETRY_API_TRACES_URL,
  telemetryApiSpanExporter,
} from "../../../functions/src/platform/google-cloud-exporters.js";
import {
  deployedTelemetry,
  GCP_PROJECT_ID,
  type TelemetrySettings,
} from "../../../functions/src/platform/telemetry.js";
import { investigationContext } from "../../../functions/src/platform/tracing.js";

/**
 * The deployed span exporter: OpenTelemetry's OTLP/HTTP protobuf exporter with Google's
 * credentials asked for on every export (docs/decisions/0055). The Telemetry API is stood in by
 * a loopback server that records each request, and google-auth-library by a source of headers
 * that hands out a new token each time; nothing leaves the machine.
 */

const SETTINGS: TelemetrySettings = {
  exporter: "google-cloud",
  traceSampleRatio: 1,
  metricExportIntervalSeconds: 60,
  projectId: "ferret-prod",
};

/** Metrics are not under test here; an in-memory exporter keeps them in the process. */
const metricStandIn = () => new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);

interface Received {
  method: string | undefined;
  path: string | undefined;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

async function telemetryApiStandIn() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks) });
      // OTLP/HTTP: a success is 200 with an ExportTraceServiceResponse; an empty one is valid.
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/traces`, received, close: () => server.close() };
}

function rotatingCredentials() {
  let issued = 0;
  return {
    get issued() {
      return issued;
    },
    async getRequestHeaders(): Promise<Headers> {
      issued += 1;
      return new Headers({ authorization: `Bearer token-${issued}` });
    },
  };
}

describe("spans over OTLP to the Telemetry API", () => {
  it("each batch is an OTLP/HTTP protobuf POST carrying the credentials current at that export", async () => {
    const api = await telemetryApiStandIn();
    const credentials = rotatingCredentials();
    try {
      const telemetry = deployedTelemetry(SETTINGS, {
        spans: () => telemetryApiSpanExporter(credentials, api.url),
        metrics: metricStandIn,
      });
      const tracer = telemetry.tracerProvider.getTracer("ferret");
      tracer.startSpan("planning.generate_action_plan", {}, investigationContext("inv-a")).end();
      await telemetry.tracerProvider.forceFlush();
      tracer.startSpan("execution.execute_action", {}, investigationContext("inv-a")).end();
      await telemetry.tracerProvider.forceFlush();

      assert.equal(api.received.length, 2, "one request per flushed batch");
      assert.deepEqual(
        api.received.map((r) => [r.method, r.path, r.headers["content-type"], r.headers.authorization]),
        [
          ["POST", "/v1/traces", "application/x-protobuf", "Bearer token-1"],
          ["POST", "/v1/traces", "application/x-protobuf", "Bearer token-2"],
        ],
        "a token is fetched for each export, so one that expired is never reused",
      );
      // Protobuf carries strings as UTF-8 bytes: the span and the project are in the body.
      const [first, second] = api.received.map((r) => r.body.toString("latin1"));
      assert.ok(
        first?.includes("planning.generate_action_plan") && second?.includes("execution.execute_action"),
      );
      for (const body of [first, second]) {
        assert.ok(
          body?.includes(GCP_PROJECT_ID) && body.includes("ferret-prod"),
          "the resource names the project",
        );
      }
      await telemetry.tracerProvider.shutdown();
      await telemetry.meterProvider.shutdown();
    } finally {
      api.close();
    }
  });

  it("an export whose credentials cannot be had fails and sends nothing; with them, the same batch goes", async () => {
    const api = await telemetryApiStandIn();
    try {
      const memory = new InMemorySpanExporter();
      const telemetry = deployedTelemetry(SETTINGS, { spans: () => memory, metrics: metricStandIn });
      telemetry.tracerProvider.getTracer("ferret").startSpan("x", {}, investigationContext("inv-b")).end();
      await telemetry.tracerProvider.forceFlush();
      const batch = memory.getFinishedSpans();
      assert.equal(batch.length, 1);
      const exportWith = (credentials: RequestHeaderSource) =>
        new Promise<ExportResultCode>((resolve) =>
          telemetryApiSpanExporter(credentials, api.url).export(batch, (result) => resolve(result.code)),
        );

      const refused = await exportWith({
        getRequestHeaders: () => Promise.reject(new Error("Could not load the default credentials")),
      });
      assert.equal(refused, ExportResultCode.FAILED);
      assert.equal(api.received.length, 0, "no request without credentials");

      assert.equal(await exportWith(rotatingCredentials()), ExportResultCode.SUCCESS);
      assert.equal(api.received.length, 1);
      await telemetry.tracerProvider.shutdown();
      await telemetry.meterProvider.shutdown();
    } finally {
      api.close();
    }
  });

  it("the deployed exporter writes to the Telemetry API's OTLP/HTTP traces path over TLS", () => {
    const url = new URL(TELEMETRY_API_TRACES_URL);
    assert.deepEqual(
      [url.protocol, url.host, url.pathname],
      ["https:", "telemetry.googleapis.com", "/v1/traces"],
    );
  });
});
