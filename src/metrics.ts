// Prometheus metrics. One registry per app instance (no global registry), so
// tests and several apps in one process do not trample each other.
import client from "prom-client";
import type { PoolStats } from "./db/database.js";

export interface Metrics {
  registry: client.Registry;
  toolCalls: client.Counter<"tool" | "outcome">;
  toolDuration: client.Histogram<"tool">;
  authFailures: client.Counter<"reason">;
  rateLimited: client.Counter<"limit">;
  httpRequests: client.Counter<"route" | "status">;
}

export function createMetrics(poolStats: () => PoolStats): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: "agent_memory_" });

  const toolCalls = new client.Counter({
    name: "agent_memory_tool_calls_total",
    help: "MCP tool calls by tool and outcome (ok, invalid, not_found, conflict, forbidden, unavailable, error).",
    labelNames: ["tool", "outcome"] as const,
    registers: [registry],
  });
  const toolDuration = new client.Histogram({
    name: "agent_memory_tool_duration_seconds",
    help: "Time spent inside MCP tool handlers, by tool.",
    labelNames: ["tool"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const authFailures = new client.Counter({
    name: "agent_memory_auth_failures_total",
    help: "Rejected credentials on /mcp and /metrics by reason (missing or invalid; deliberately no finer).",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const rateLimited = new client.Counter({
    name: "agent_memory_rate_limited_total",
    help: "Requests refused by a rate limit (per_token, auth_failures).",
    labelNames: ["limit"] as const,
    registers: [registry],
  });
  const httpRequests = new client.Counter({
    name: "agent_memory_http_requests_total",
    help: "HTTP requests by route and status code.",
    labelNames: ["route", "status"] as const,
    registers: [registry],
  });
  const pool = new client.Gauge({
    name: "agent_memory_db_pool_connections",
    help: "Database pool connections by state (total, idle, waiting, max).",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const s = poolStats();
      this.set({ state: "total" }, s.total);
      this.set({ state: "idle" }, s.idle);
      this.set({ state: "waiting" }, s.waiting);
      this.set({ state: "max" }, s.max);
    },
  });
  void pool;
  return { registry, toolCalls, toolDuration, authFailures, rateLimited, httpRequests };
}
