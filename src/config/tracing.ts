// Tracing (OpenTelemetry), opt-in by the standard OTEL_* variables: on when an
// OTLP endpoint or a traces exporter is named, off otherwise and when
// OTEL_SDK_DISABLED is true. Decided here: whether it is on, the exporter and
// its protocol (the service builds the exporter, to filter what leaves the
// process: src/tracing/export.ts), and whether the operator chose a sampler
// (without one, the service decides, never the caller's trace flags). The SDK
// reads the rest of OTEL_* itself (endpoint, headers, timeouts, the sampler's
// argument, batch sizes: docs/tracing.md). Off, the SDK is never loaded.
import * as z from "zod/v4";
import { boolFrom } from "./parse.js";

const TRACES_EXPORTERS = ["", "none", "otlp", "console"] as const;
const OTLP_PROTOCOLS = ["", "http/protobuf", "http/json", "grpc"] as const;
export type OtlpProtocol = Exclude<(typeof OTLP_PROTOCOLS)[number], "">;
const SAMPLERS = ["", "always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"] as const;

const oneOf = (name: string, values: readonly string[]) =>
  z
    .string()
    .trim()
    .optional()
    .default("")
    .refine((v) => values.includes(v), { message: `${name} must be one of ${values.filter((v) => v !== "").join(", ")} (or empty)` });

export const tracingEnv = z.object({
  OTEL_SDK_DISABLED: boolFrom("OTEL_SDK_DISABLED", false),
  OTEL_TRACES_EXPORTER: z
    .string()
    .trim()
    .optional()
    .default("")
    .refine((v) => (TRACES_EXPORTERS as readonly string[]).includes(v), { message: "OTEL_TRACES_EXPORTER must be otlp, console or none (or empty: otlp when an endpoint is set)" }),
  OTEL_EXPORTER_OTLP_PROTOCOL: oneOf("OTEL_EXPORTER_OTLP_PROTOCOL", OTLP_PROTOCOLS),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: oneOf("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", OTLP_PROTOCOLS),
  OTEL_TRACES_SAMPLER: oneOf("OTEL_TRACES_SAMPLER", SAMPLERS),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().trim().optional().default(""),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().trim().optional().default(""),
  OTEL_SERVICE_NAME: z.string().trim().optional().default("agent-memory"),
});

export interface TracingSettings {
  /** Spans are made and exported (src/tracing/); false: the SDK is not even loaded. */
  enabled: boolean;
  serviceName: string;
  exporter: "otlp" | "console";
  /** The OTLP protocol (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL). */
  protocol: OtlpProtocol;
  /** Whether OTEL_TRACES_SAMPLER names a sampler (the SDK then reads it); false: every request is traced, whatever its caller's flags. */
  operatorSampler: boolean;
  /** Where spans go for the banner and the log: the OTLP endpoint's origin and path (never its credentials or query), or "" when the SDK's default is used. */
  endpoint: string;
  /** OTEL_TRACES_SAMPLER as set ("" when the service decides). */
  sampler: string;
}

export interface TracingConfig {
  tracing: TracingSettings;
}

/** An endpoint URL as it may be shown: without a user, a password or a query (a vendor's key may ride in either). */
function withoutCredentials(url: string): string {
  if (url === "") return "";
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    return "(OTLP endpoint)";
  }
}

/** Tracing as the banner and the start-up log name it: off, or on with its exporter, protocol, destination and sampling. */
export function describeTracing(t: TracingSettings): string {
  if (!t.enabled) return "off";
  if (t.exporter === "console") return "on, spans printed to stdout (OTEL_TRACES_EXPORTER=console)";
  const to = t.endpoint || "the OTLP default (localhost)";
  const sampling = t.operatorSampler ? `sampler ${t.sampler}` : "every request";
  return `on, OTLP ${t.protocol} to ${to}, ${sampling}`;
}

/** Whether the standard variables ask for traces. */
export function tracingConfig(e: z.output<typeof tracingEnv>): TracingConfig {
  const exporter = e.OTEL_TRACES_EXPORTER;
  const endpoint = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== "" || e.OTEL_EXPORTER_OTLP_ENDPOINT !== "";
  const enabled = !e.OTEL_SDK_DISABLED && exporter !== "none" && (exporter !== "" || endpoint);
  return {
    tracing: {
      enabled,
      serviceName: e.OTEL_SERVICE_NAME || "agent-memory",
      exporter: exporter === "console" ? "console" : "otlp",
      protocol: ((e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || e.OTEL_EXPORTER_OTLP_PROTOCOL) as OtlpProtocol | "") || "http/protobuf",
      operatorSampler: e.OTEL_TRACES_SAMPLER !== "",
      endpoint: withoutCredentials(e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || e.OTEL_EXPORTER_OTLP_ENDPOINT),
      sampler: e.OTEL_TRACES_SAMPLER,
    },
  };
}

/** The same decision from the environment alone, before anything else is loaded (src/cli/main.ts starts the SDK first, so its instrumentations see pg and express load). */
export function tracingFromEnv(env: NodeJS.ProcessEnv): TracingSettings {
  const parsed = tracingEnv.safeParse(env);
  // A bad value is reported by loadConfig with every other problem; tracing stays off meanwhile.
  return parsed.success ? tracingConfig(parsed.data).tracing : { ...tracingConfig(tracingEnv.parse({})).tracing, enabled: false };
}
