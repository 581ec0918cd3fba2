import { type Attributes, metrics } from "@opentelemetry/api";

/**
 * Recording a value on an OpenTelemetry histogram of ferret's meter. The API's global meter
 * provider is a no-op until the deployed telemetry registers one (platform/telemetry.ts), and
 * unlike the tracer it is not a proxy, so the instrument is looked up at each recording: a
 * value recorded after registration reaches the registered provider. The SDK gives back the
 * same instrument for the same name and description.
 */
export interface HistogramSpec {
  name: string;
  description: string;
  unit: string;
  /** Bucket boundaries the SDK is advised to use (a distribution's mean does not depend on them). */
  boundaries?: number[];
}

/** The instrumentation scope of ferret's instruments, as of its spans. */
const METER_NAME = "ferret";

export function recordHistogram(spec: HistogramSpec, value: number, attributes: Attributes = {}): void {
  metrics
    .getMeter(METER_NAME)
    .createHistogram(spec.name, {
      description: spec.description,
      unit: spec.unit,
      ...(spec.boundaries ? { advice: { explicitBucketBoundaries: spec.boundaries } } : {}),
    })
    .record(value, attributes);
}

export interface CounterSpec {
  name: string;
  description: string;
  unit: string;
}

/** Adds to a monotonic counter of ferret's meter (Cloud Monitoring: a CUMULATIVE metric). */
export function addToCounter(spec: CounterSpec, value: number, attributes: Attributes = {}): void {
  metrics
    .getMeter(METER_NAME)
    .createCounter(spec.name, { description: spec.description, unit: spec.unit })
    .add(value, attributes);
}
