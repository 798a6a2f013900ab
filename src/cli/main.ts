#!/usr/bin/env node
// agent-memory: one entry point for the service and its administration
// (src/cli/program.ts), run as this process, with its streams and environment
// (and the working directory's .env: src/config/env-file.ts).
//
// With OTEL_* asking for traces (src/config/tracing.ts), OpenTelemetry starts
// first and the program is loaded after it, so that the instrumentations of pg
// and express hook those as they load. Without, the SDK is never loaded.
import { applyEnvFile } from "../config/env-file.js";
import { tracingFromEnv } from "../config/tracing.js";

// ./.env first, as docker compose reads it (variables already set win).
applyEnvFile(process.env);
const tracingSettings = tracingFromEnv(process.env);
const tracing = tracingSettings.enabled ? await (await import("../tracing/sdk.js")).startTracing(tracingSettings) : undefined;
const { runProgram } = await import("./program.js");
process.exitCode = await runProgram(process.argv);
// The spans still buffered are exported before the process ends.
await tracing?.shutdown();
