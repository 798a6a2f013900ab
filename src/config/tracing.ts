// Tracing (OpenTelemetry), opt-in by the standard OTEL_* variables: on when an
// OTLP endpoint or a traces exporter is named, off otherwise and when
// OTEL_SDK_DISABLED is true. Only whether it is on (and the service's name) is
// decided here; the SDK reads the rest of OTEL_* itself (protocol, headers,
// sampler: docs/tracing.md). Off, the SDK is never loaded.
import * as z from "zod/v4";
import { boolFrom } from "./parse.js";

const TRACES_EXPORTERS = ["", "none", "otlp", "console"] as const;

export const tracingEnv = z.object({
  OTEL_SDK_DISABLED: boolFrom("OTEL_SDK_DISABLED", false),
  OTEL_TRACES_EXPORTER: z
    .string()
    .trim()
    .optional()
    .default("")
    .refine((v) => (TRACES_EXPORTERS as readonly string[]).includes(v), { message: "OTEL_TRACES_EXPORTER must be otlp, console or none (or empty: otlp when an endpoint is set)" }),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().trim().optional().default(""),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().trim().optional().default(""),
  OTEL_SERVICE_NAME: z.string().trim().optional().default("agent-memory"),
});

export interface TracingConfig {
  tracing: {
    /** Spans are made and exported (src/tracing/); false: the SDK is not even loaded. */
    enabled: boolean;
    serviceName: string;
  };
}

/** Whether the standard variables ask for traces. */
export function tracingConfig(e: z.output<typeof tracingEnv>): TracingConfig {
  const exporter = e.OTEL_TRACES_EXPORTER;
  const endpoint = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== "" || e.OTEL_EXPORTER_OTLP_ENDPOINT !== "";
  const enabled = !e.OTEL_SDK_DISABLED && exporter !== "none" && (exporter !== "" || endpoint);
  return { tracing: { enabled, serviceName: e.OTEL_SERVICE_NAME || "agent-memory" } };
}

/** The same decision from the environment alone, before anything else is loaded (src/cli/main.ts starts the SDK first, so its instrumentations see pg and express load). */
export function tracingFromEnv(env: NodeJS.ProcessEnv): TracingConfig["tracing"] {
  const parsed = tracingEnv.safeParse(env);
  // A bad value is reported by loadConfig with every other problem; tracing stays off meanwhile.
  return parsed.success ? tracingConfig(parsed.data).tracing : { enabled: false, serviceName: "agent-memory" };
}
