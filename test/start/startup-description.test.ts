// The banner and the start-up log name what the service runs on: the database,
// DATABASE_READ_URL's replicas, and tracing (on, and where spans go), never a
// password, a token or an endpoint's query.
import { describe, expect, it } from "vitest";
import { banner, startupDescription } from "../../src/start/banner.js";
import { loadConfig } from "../../src/config/index.js";

const MCP = "http://127.0.0.1:8080/mcp";

describe("the start-up's description of the service", () => {
  it("names the read replicas and tracing with where its spans go", () => {
    const config = loadConfig({
      DATABASE_URL: "postgres://memory:secret-pw@db1:5432/memory",
      DATABASE_READ_URL: "postgres://memory:secret-pw@replica1:5432,replica2:5433/memory",
      DATABASE_READ_MAX_LAG_MS: "2000",
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://user:key@otlp.example.com:4318/v1?api_key=abc",
      OTEL_TRACES_SAMPLER: "traceidratio",
    });
    const described = startupDescription(config);
    expect(described).toEqual({
      database: "Postgres at db1:5432/memory",
      readReplicas: "replica1:5432,replica2:5433 (reads at most 2000 ms behind the primary; an agent's own writes read on the primary)",
      tracing: "on, OTLP http/protobuf to https://otlp.example.com:4318/v1, sampler traceidratio",
    });
    const text = banner(MCP, config, undefined, undefined);
    expect(text).toContain(`read replicas: ${described.readReplicas}`);
    expect(text).toContain(`tracing: ${described.tracing}`);
    expect(JSON.stringify(described) + text).not.toMatch(/secret-pw|key@|api_key|abc/);
  });

  it("says tracing is off, and names no replicas, when neither is set", () => {
    const config = loadConfig({});
    expect(startupDescription(config)).toEqual({ database: expect.stringMatching(/^embedded Postgres \(PGlite\) in /), tracing: "off" });
    const text = banner(MCP, config, undefined, undefined);
    expect(text).not.toContain("read replicas:");
    expect(text).not.toContain("tracing:");
  });

  it("names the console exporter and a traces endpoint of its own", () => {
    expect(startupDescription(loadConfig({ OTEL_TRACES_EXPORTER: "console" })).tracing).toBe("on, spans printed to stdout (OTEL_TRACES_EXPORTER=console)");
    expect(startupDescription(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).tracing).toBe(
      "on, OTLP grpc to http://collector:4318/v1/traces, every request",
    );
  });
});
