// What a span may carry when it leaves the process: the one filter between the
// spans the instrumentations make and the exporter that sends them. The
// libraries record more than docs/tracing.md allows, and no option of theirs
// turns it off:
// - the HTTP server span's url.path and url.query (a console page's path names
//   a scope and a fact; its query is what a person searched): the path becomes
//   the matched route's template (http.route), the query is dropped;
// - a status message (pg copies Postgres' error text, which can quote stored
//   text): dropped; a failed statement's SQLSTATE becomes its error.type (pg
//   puts it only in its exception event's message, which it writes itself:
//   type and code, no text);
// - an exception event's message (an error's text): dropped; its type stays.
import type { Attributes } from "@opentelemetry/api";
import type { ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter, TimedEvent } from "@opentelemetry/sdk-trace";
import type { OtlpProtocol, TracingSettings } from "../config/tracing.js";

/** A request that matched no route (a 404 of an unknown path): its path is whatever was sent. */
const NO_ROUTE = "(no route)";
const DROPPED_ATTRIBUTES = ["url.query", "url.full", "http.target", "http.url"];
const DROPPED_EVENT_ATTRIBUTES = ["exception.message"];

function filteredAttributes(attributes: Attributes): Attributes {
  if (attributes["url.path"] === undefined && !DROPPED_ATTRIBUTES.some((key) => key in attributes)) return attributes;
  const kept: Attributes = { ...attributes };
  for (const key of DROPPED_ATTRIBUTES) delete kept[key];
  if ("url.path" in kept) kept["url.path"] = attributes["http.route"] ?? NO_ROUTE;
  return kept;
}

function filteredEvents(events: TimedEvent[]): TimedEvent[] {
  if (!events.some((e) => e.attributes && DROPPED_EVENT_ATTRIBUTES.some((key) => key in e.attributes!))) return events;
  return events.map((event) => {
    if (!event.attributes) return event;
    const attributes = { ...event.attributes };
    for (const key of DROPPED_EVENT_ATTRIBUTES) delete attributes[key];
    return { ...event, attributes };
  });
}

/** The SQLSTATE in the message pg's instrumentation writes of a failed statement ("… (code: 23505)"). */
const SQLSTATE_IN_MESSAGE = /\(code: ([0-9A-Z]{5})\)$/;

function sqlState(span: ReadableSpan): string | undefined {
  if (span.attributes["db.system.name"] === undefined) return undefined;
  for (const event of span.events) {
    const message = event.attributes?.["exception.message"];
    const code = typeof message === "string" ? SQLSTATE_IN_MESSAGE.exec(message)?.[1] : undefined;
    if (code) return code;
  }
  return undefined;
}

/** The span as it may leave: the same span seen through the filter (it is read-only by now). */
export function filteredSpan(span: ReadableSpan): ReadableSpan {
  const code = span.attributes["error.type"] === undefined ? sqlState(span) : undefined;
  const attributes = code ? { ...filteredAttributes(span.attributes), "error.type": code } : filteredAttributes(span.attributes);
  const events = filteredEvents(span.events);
  const status = span.status.message === undefined ? span.status : { code: span.status.code };
  if (attributes === span.attributes && events === span.events && status === span.status) return span;
  return Object.create(span, { attributes: { value: attributes }, events: { value: events }, status: { value: status } }) as ReadableSpan;
}

/** An exporter that sends every span through filteredSpan first. */
class FilteringExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans.map(filteredSpan), done);
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The OTLP exporter of `protocol` (it reads its endpoint, headers and timeout from OTEL_* itself), or the console's. */
async function exporterFor(settings: Pick<TracingSettings, "exporter" | "protocol">): Promise<SpanExporter> {
  if (settings.exporter === "console") return new (await import("@opentelemetry/sdk-trace")).ConsoleSpanExporter();
  const byProtocol: Record<OtlpProtocol, () => Promise<{ OTLPTraceExporter: new () => SpanExporter }>> = {
    "http/protobuf": () => import("@opentelemetry/exporter-trace-otlp-proto"),
    "http/json": () => import("@opentelemetry/exporter-trace-otlp-http"),
    grpc: () => import("@opentelemetry/exporter-trace-otlp-grpc"),
  };
  const { OTLPTraceExporter } = await byProtocol[settings.protocol]();
  return new OTLPTraceExporter();
}

/** The exporter the SDK batches spans into: the configured one, behind the filter. */
export async function filteredExporter(settings: Pick<TracingSettings, "exporter" | "protocol">): Promise<SpanExporter> {
  return new FilteringExporter(await exporterFor(settings));
}
