// Prometheus metrics. One registry per app instance (no global registry), so
// tests and several apps in one process do not trample each other.
import cluster from "node:cluster";
import client from "prom-client";
import type { DatabaseHealth, PoolStats } from "./db/core/database.js";
import { REPLICA_STATES, type ReplicaStatus } from "./db/postgres/read-router.js";
import { workerMetrics } from "./metrics-workers.js";
import { SECRET_KINDS } from "./secrets/kinds.js";

/**
 * The only reasons agent_memory_auth_failures_total carries: no credential, or
 * one that was refused, whatever the cause (unknown, revoked, expired, another
 * audience, a JWT of another issuer…). Whoever reads /metrics must not learn
 * that a token once existed, or which agents do; the caller's own 401 says more.
 */
const AUTH_FAILURE_REASONS = ["missing", "invalid"] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

/** One scope's memory health (src/facts/review/health.ts). */
export interface HealthFigures {
  scope: string;
  drafts: number;
  oldestDraftSeconds: number;
  stale: number;
}

export interface Metrics {
  registry: client.Registry;
  toolCalls: client.Counter<"tool" | "outcome">;
  toolDuration: client.Histogram<"tool">;
  /** Counted only with one of AUTH_FAILURE_REASONS (the type allows no other). */
  authFailures: { inc(labels: { reason: AuthFailureReason }): void };
  rateLimited: client.Counter<"limit">;
  httpRequests: client.Counter<"route" | "status">;
  /** MCP requests waiting for their agent's turn (MCP_CONCURRENT_PER_AGENT). */
  mcpWaiting: client.Gauge;
  /** Writes refused by the secret guard, by kind of credential (src/secrets/kinds.ts). */
  secretsRefused: client.Counter<"kind">;
  /** Reviews by outcome: confirmed, deprecated, reconfirmed (a stale fact confirmed again). */
  reviews: client.Counter<"outcome">;
  /** memory_store answers that listed similar facts (the duplicate warning). */
  duplicateWarnings: client.Counter;
  /** memory_recall calls by result: hits or empty. */
  recalls: client.Counter<"result">;
  /** Recall by meaning (src/facts/embeddings/): facts waiting for a vector as the queue last counted them, facts embedded, failed requests to the endpoint (queue or recall), and the keywords' embedding per recall. */
  embeddingsWaiting: client.Gauge;
  factsEmbedded: client.Counter;
  embeddingFailures: client.Counter<"leg">;
  recallSemantic: client.Histogram<"result">;
  /**
   * Where the health gauges read their figures (set once by the app:
   * src/facts/review/health.ts); undefined when they could not be read (the database
   * is down), and the gauges are then left out of the scrape.
   */
  health: { source: (() => Promise<HealthFigures[] | undefined>) | undefined };
  /** Recall receipts written (src/facts/trust/receipt-writer.ts), and those dropped because the queue was full while the database was away. */
  receiptsRecorded: client.Counter;
  receiptsDropped: client.Counter;
  /** Withdrawal notices shown to the agents that had read a fact later deprecated. */
  noticesDelivered: client.Counter;
  /** Reads that could run on a replica (DATABASE_READ_URL), by where they ran: replica or primary. */
  dbReads: client.Counter<"target">;
  /** Where the replica gauges read each replica's state and lag (set by serve.ts when DATABASE_READ_URL is set). */
  replicas: { source: (() => ReplicaStatus[]) | undefined };
  /** Where the database gauges read the primary's faults (writes waiting for a standby, stale primaries): Postgres only. */
  database: { source: (() => Promise<DatabaseHealth>) | undefined };
  /** The text of GET /metrics: this process's metrics or, in a worker, every worker's added up. */
  render(): Promise<string>;
  /** In a cluster worker: counts one answered request for this worker. */
  countWorkerRequest: (() => void) | undefined;
}

/** Scopes the health gauges name one by one; the rest are added up as scope="other". */
export const HEALTH_SCOPES_NAMED = 20;
/**
 * A health reading serves every scrape for this long: a flood of scrapes
 * (unauthenticated, where METRICS_TOKEN is unset) costs the database one
 * reading per interval, not one per request.
 */
const HEALTH_READING_REUSED_MS = 10_000;

interface MetricsOptions {
  /**
   * Whether the health gauges name scopes (METRICS_TOKEN is set, so only an
   * authenticated scraper reads them); without it they are one series, scope="all".
   */
  scopeLabels: boolean;
}

/**
 * The health figures as the gauges label them: every scope added up into "all"
 * (no scope names), or the HEALTH_SCOPES_NAMED with the largest backlog and the
 * rest as "other", so the series stay bounded whatever the number of scopes.
 */
export function healthSeries(figures: HealthFigures[], scopeLabels: boolean): HealthFigures[] {
  const add = (scope: string, rows: HealthFigures[]): HealthFigures => ({
    scope,
    drafts: rows.reduce((n, r) => n + r.drafts, 0),
    oldestDraftSeconds: rows.reduce((n, r) => Math.max(n, r.oldestDraftSeconds), 0),
    stale: rows.reduce((n, r) => n + r.stale, 0),
  });
  if (!scopeLabels) return [add("all", figures)];
  const ranked = [...figures].sort((a, b) => b.drafts - a.drafts || b.stale - a.stale || a.scope.localeCompare(b.scope));
  const named = ranked.slice(0, HEALTH_SCOPES_NAMED);
  return ranked.length > HEALTH_SCOPES_NAMED ? [...named, add("other", ranked.slice(HEALTH_SCOPES_NAMED))] : named;
}

export function createMetrics(poolStats: () => PoolStats, options: MetricsOptions = { scopeLabels: true }): Metrics {
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
    help: "Rejected credentials (MCP, /metrics, console and consent sign-ins) by reason: missing or invalid, deliberately no finer.",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  // Both series exist from the start, at 0, so an alert can rate() them before the first refusal.
  for (const reason of AUTH_FAILURE_REASONS) authFailures.labels({ reason }).inc(0);
  const rateLimited = new client.Counter({
    name: "agent_memory_rate_limited_total",
    help: "Requests refused by a limit (per_token, auth_failures, per_agent_concurrency, oauth: the authorization server's endpoints per address).",
    labelNames: ["limit"] as const,
    registers: [registry],
  });
  const httpRequests = new client.Counter({
    name: "agent_memory_http_requests_total",
    help: "HTTP requests by route and status code.",
    labelNames: ["route", "status"] as const,
    registers: [registry],
  });
  const mcpWaiting = new client.Gauge({
    name: "agent_memory_mcp_requests_waiting",
    help: "MCP requests waiting for their agent's turn: past MCP_CONCURRENT_PER_AGENT in progress, up to MCP_QUEUE_PER_AGENT each.",
    registers: [registry],
  });
  const secretsRefused = new client.Counter({
    name: "agent_memory_secrets_refused_total",
    help: "Texts refused by the secret guard (SECRET_GUARD), by kind of credential.",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  for (const kind of SECRET_KINDS) secretsRefused.labels({ kind }).inc(0);
  const reviews = new client.Counter({
    name: "agent_memory_reviews_total",
    help: "Fact reviews by outcome: confirmed, deprecated, reconfirmed (a stale fact confirmed again).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  for (const outcome of ["confirmed", "deprecated", "reconfirmed"]) reviews.labels({ outcome }).inc(0);
  const duplicateWarnings = new client.Counter({ name: "agent_memory_duplicate_warnings_total", help: "memory_store answers that listed similar facts (the duplicate warning).", registers: [registry] });
  const recalls = new client.Counter({ name: "agent_memory_recalls_total", help: "memory_recall calls by result: hits or empty.", labelNames: ["result"] as const, registers: [registry] });
  for (const result of ["hits", "empty"]) recalls.labels({ result }).inc(0);
  const embeddingsWaiting = new client.Gauge({ name: "agent_memory_embeddings_waiting", help: "Facts without a vector of EMBEDDINGS_MODEL, as the embedding queue last counted them (recall finds them by words meanwhile).", registers: [registry] });
  const factsEmbedded = new client.Counter({ name: "agent_memory_facts_embedded_total", help: "Facts the embedding queue embedded and stored a vector for.", registers: [registry] });
  const embeddingFailures = new client.Counter({
    name: "agent_memory_embedding_failures_total",
    help: "Requests to the embeddings endpoint that failed or ran out of time, by leg: queue (retried with backoff) or recall (answered by words).",
    labelNames: ["leg"] as const,
    registers: [registry],
  });
  const recallSemantic = new client.Histogram({
    name: "agent_memory_recall_semantic_seconds",
    help: "The semantic leg of memory_recall (the keywords' embedding and the neighbour search), by result: used, or unavailable (endpoint slow or down: recall answered by words).",
    labelNames: ["result"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const receiptsRecorded = new client.Counter({ name: "agent_memory_receipts_recorded_total", help: "Recall receipts written: one per fact served to an agent (docs/receipts.md).", registers: [registry] });
  const receiptsDropped = new client.Counter({ name: "agent_memory_receipts_dropped_total", help: "Recall receipts dropped because the queue was full while the database refused them.", registers: [registry] });
  const noticesDelivered = new client.Counter({ name: "agent_memory_withdrawal_notices_delivered_total", help: "Notices shown to an agent that a fact it had read was withdrawn (memory_recall, start-task).", registers: [registry] });
  const health: Metrics["health"] = { source: undefined };
  // One reading serves the three gauges of a scrape (prom-client asks them at
  // once) and the scrapes of the next HEALTH_READING_REUSED_MS; every worker
  // (WORKERS > 1) reads the same figures, so the aggregate keeps one ("max"), not the sum.
  let reading: { at: number; series: Promise<HealthFigures[] | undefined> } | undefined;
  const figures = () => {
    if (!reading || performance.now() - reading.at > HEALTH_READING_REUSED_MS) {
      const series = (health.source?.() ?? Promise.resolve([])).then(
        (f) => f && healthSeries(f, options.scopeLabels),
        () => undefined,
      );
      reading = { at: performance.now(), series };
      // A failed reading is not kept: the next scrape tries again.
      series.then((f) => f === undefined && reading?.series === series && (reading = undefined));
    }
    return reading.series;
  };
  const healthGauge = (name: string, help: string, value: (f: HealthFigures) => number) =>
    new client.Gauge({
      name,
      help,
      labelNames: ["scope"] as const,
      registers: [registry],
      aggregator: "max",
      async collect() {
        this.reset();
        for (const f of (await figures()) ?? []) this.set({ scope: f.scope }, value(f));
      },
    });
  healthGauge("agent_memory_review_backlog", "Drafts waiting for review, by scope.", (f) => f.drafts);
  healthGauge("agent_memory_review_backlog_oldest_seconds", "How long the oldest draft of the scope has waited for review, in seconds.", (f) => f.oldestDraftSeconds);
  healthGauge("agent_memory_stale_facts", "Confirmed facts nobody has reviewed for STALE_AFTER_DAYS, by scope.", (f) => f.stale);
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
  const dbReads = new client.Counter({
    name: "agent_memory_db_reads_total",
    help: "Calls whose reads may be a moment old (DATABASE_READ_URL), by where they ran: replica, or primary (no replica had the caller's last write, or none was up and within DATABASE_READ_MAX_LAG_MS).",
    labelNames: ["target"] as const,
    registers: [registry],
  });
  const replicas: Metrics["replicas"] = { source: undefined };
  new client.Gauge({
    name: "agent_memory_db_replica_lag_seconds",
    help: "How far each read replica is behind the primary, in seconds (absent while it is down).",
    labelNames: ["replica"] as const,
    registers: [registry],
    aggregator: "max",
    collect() {
      this.reset();
      for (const r of replicas.source?.() ?? []) if (r.lagSeconds !== undefined) this.set({ replica: r.name }, r.lagSeconds);
    },
  });
  new client.Gauge({
    name: "agent_memory_db_replica_state",
    help: "Each read replica's state: 1 on the series of its current state (up, lagging: beyond DATABASE_READ_MAX_LAG_MS, down: unreachable, primary: promoted, not a replica any more), 0 on the others.",
    labelNames: ["replica", "state"] as const,
    registers: [registry],
    aggregator: "max",
    collect() {
      this.reset();
      for (const r of replicas.source?.() ?? []) for (const state of REPLICA_STATES) this.set({ replica: r.name, state }, r.state === state ? 1 : 0);
    },
  });
  const database: Metrics["database"] = { source: undefined };
  // One reading for both gauges of a scrape.
  let databaseReading: { at: number; health: Promise<DatabaseHealth | undefined> } | undefined;
  const databaseHealth = () => {
    if (!databaseReading || performance.now() - databaseReading.at > 1000) {
      databaseReading = { at: performance.now(), health: (database.source?.() ?? Promise.resolve(undefined)).catch(() => undefined) };
    }
    return databaseReading.health;
  };
  new client.Gauge({
    name: "agent_memory_db_writes_degraded",
    help: "1 while commits of this service wait for a synchronous standby past the deadline margin (the standby is gone: writes answer \"may have committed\" at their deadline), else 0.",
    registers: [registry],
    aggregator: "max",
    async collect() {
      const h = await databaseHealth();
      this.set(h && h.writesWaitingForStandby > 0 ? 1 : 0);
    },
  });
  new client.Gauge({
    name: "agent_memory_db_stale_primary",
    help: "1 for each host of DATABASE_URL that accepts writes on an older timeline than the primary (an old primary back after a failover; never used: fence it).",
    labelNames: ["host"] as const,
    registers: [registry],
    aggregator: "max",
    async collect() {
      this.reset();
      for (const host of (await databaseHealth())?.stalePrimaries ?? []) this.set({ host }, 1);
    },
  });
  const inWorker = cluster.isWorker ? workerMetrics(registry) : undefined;
  const render = inWorker?.render ?? (() => registry.metrics());
  return { registry, toolCalls, toolDuration, authFailures, rateLimited, httpRequests, mcpWaiting, secretsRefused, reviews, duplicateWarnings, recalls, embeddingsWaiting, factsEmbedded, embeddingFailures, recallSemantic, receiptsRecorded, receiptsDropped, noticesDelivered, health, dbReads, replicas, database, render, countWorkerRequest: inWorker?.countRequest };
}
