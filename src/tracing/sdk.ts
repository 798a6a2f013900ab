// Starting OpenTelemetry's Node SDK: loaded by src/cli/main.ts only when the
// OTEL_* variables ask for traces (src/config/tracing.ts), and before anything
// that loads pg or express, so that their instrumentations hook them as they
// load. The SDK reads the exporter, its endpoint and protocol, headers and the
// sampler from OTEL_* itself. Statements are traced without their parameter
// values, and only inside a request (no span per background check).
import { register } from "node:module";
import { tracedLibraries } from "./instrumentations.js";

export interface RunningTracing {
  /** Exports the spans still buffered and stops (at the end of the process). */
  shutdown(): Promise<void>;
}

export async function startTracing(serviceName: string): Promise<RunningTracing> {
  // Express reaches this service through an ESM import, which the require hooks
  // do not see: OpenTelemetry's ESM loader hook (import-in-the-middle) does, for
  // modules imported after this line. Only express is wrapped: a wrapped module's
  // exports are reached through the wrapper's bindings, a cost every call of
  // this service's own modules would pay. pg is seen by the require hooks.
  register("@opentelemetry/instrumentation/hook.mjs", import.meta.url, { data: { include: ["express"] } });
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  // Traces only: the SDK would otherwise also export metrics and logs over OTLP
  // by default (this service's metrics are /metrics, Prometheus), and record a
  // histogram per request for them.
  const sdk = new NodeSDK({ serviceName, instrumentations: await tracedLibraries(), metricReaders: [], logRecordProcessors: [] });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
