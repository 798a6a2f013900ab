// Starting OpenTelemetry's Node SDK: loaded by src/cli/main.ts only when the
// OTEL_* variables ask for traces (src/config/tracing.ts), and before anything
// that loads pg or express, so that their instrumentations hook them as they
// load. The SDK reads the exporter's endpoint, headers and timeout, the batch
// sizes and an operator's sampler from OTEL_* itself. Statements are traced
// without their parameter values, and only inside a request (no span per
// background check).
import { register } from "node:module";
import type { TracingSettings } from "../config/tracing.js";
import { filteredExporter } from "./export.js";
import { tracedLibraries } from "./instrumentations.js";

/**
 * What one span may hold, whatever a caller sends: the service bounds the text
 * it records from a request itself (src/tracing/mcp-spans.ts); these bound what
 * the libraries record (a User-Agent header, say). With the batch processor's
 * queue (OTEL_BSP_MAX_QUEUE_SIZE, 2,048 spans) and one export at a time, the
 * memory spans take stays bounded when the collector stalls.
 */
const SPAN_LIMITS = {
  attributeValueLengthLimit: 2048,
  attributeCountLimit: 64,
  eventCountLimit: 16,
  linkCountLimit: 16,
  attributePerEventCountLimit: 16,
  attributePerLinkCountLimit: 16,
};

export interface RunningTracing {
  /** Exports the spans still buffered and stops (at the end of the process). */
  shutdown(): Promise<void>;
}

export async function startTracing(settings: TracingSettings): Promise<RunningTracing> {
  // Express reaches this service through an ESM import, which the require hooks
  // do not see: OpenTelemetry's ESM loader hook (import-in-the-middle) does, for
  // modules imported after this line. Only express is wrapped: a wrapped module's
  // exports are reached through the wrapper's bindings, a cost every call of
  // this service's own modules would pay. pg is seen by the require hooks.
  register("@opentelemetry/instrumentation/hook.mjs", import.meta.url, { data: { include: ["express"] } });
  const [{ NodeSDK }, { AlwaysOnSampler }] = await Promise.all([import("@opentelemetry/sdk-node"), import("@opentelemetry/sdk-trace")]);
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    instrumentations: await tracedLibraries(),
    traceExporter: await filteredExporter(settings),
    spanLimits: SPAN_LIMITS,
    // Without OTEL_TRACES_SAMPLER the service samples every request itself: the
    // SDK's default (parent-based) would let a caller's trace flags decide, forcing
    // the cost of tracing all its calls, or hiding them. An operator's sampler
    // (a ratio, or parent-based on purpose) is read from OTEL_* by the SDK.
    ...(settings.operatorSampler ? {} : { sampler: new AlwaysOnSampler() }),
    // Traces only: the SDK would otherwise also export metrics and logs over OTLP
    // by default (this service's metrics are /metrics, Prometheus), and record a
    // histogram per request for them.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
