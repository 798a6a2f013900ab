// Memory health in /metrics, read back after real MCP calls: the review
// backlog and its oldest draft by scope, stale facts, reviews by outcome,
// duplicate warnings, and recalls with and without hits. Scope names only to
// a scraper with METRICS_TOKEN, at most HEALTH_SCOPES_NAMED of them; a flood
// of scrapes costs one reading; scrapes write nothing; the day's sample is
// written once; a database that is down leaves the health gauges out.
import { readFile } from "node:fs/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { storeFact } from "../../src/facts/lifecycle/store.js";
import { HEALTH_SCOPES_NAMED, healthSeries } from "../../src/metrics.js";
import { adminQuery } from "../support/admin-db.js";
import { callerOf } from "../console/support.js";
import { sampleHealthToday } from "../../src/facts/review/health.js";
import type { RunningService } from "../../src/serve.js";
import { createTestDatabase, TEST_TIMEOUTS, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startTestService } from "../support/service.js";

describe.each(["postgres", "pglite"] as const)("memory health in /metrics (%s)", (kind) => {
  let tdb: TestDatabase;
  let service: RunningService;
  let writer: Client;
  let reviewer: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase(kind);
    service = await startTestService(tdb.db, { STALE_AFTER_DAYS: "30", METRICS_TOKEN: "scrape-secret-0123456789abcdef0123456789" });
    writer = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "writer", { scopes: ["shared", "ops"] })).token);
    reviewer = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "reviewer", { scopes: ["shared", "ops"] })).token);
  });

  const metrics = async () => (await fetch(`${service.url}/metrics`, { headers: { Authorization: "Bearer scrape-secret-0123456789abcdef0123456789" } })).text();
  const value = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  // Back-dating a review or a version: the lifecycle trigger refuses it, as it should for anyone else.
  const backdate = (column: "status_at" | "updated_at", name: string, age: string) =>
    tdb.db.transaction(async (tx) => {
      await tx.query("set local session_replication_role = replica");
      await tx.query(`update facts set ${column} = now() - interval '${age}' where name = $1`, [name]);
    });
  const store = (name: string, scope: string, description: string) => callOk(writer, "memory_store", { name, description, type: "project", body: "b", scope });

  it("reports the backlog, its oldest draft and stale facts by scope, and counts reviews, warnings and recalls", async () => {
    await store("deploy-window", "shared", "Deploys run Tuesday to Thursday");
    await store("deploy-freeze", "shared", "No deploys on Friday afternoon");
    await store("ops-pager", "ops", "The pager rotates weekly");
    await store("ops-backup", "ops", "Backups run nightly at two");
    await callOk(reviewer, "memory_promote", { name: "ops-backup", to: "confirmed", reason: "checked" });
    // A confirmation 40 days old: stale with STALE_AFTER_DAYS=30.
    await backdate("status_at", "ops-backup", "40 days");
    await backdate("updated_at", "deploy-window", "2 hours");
    await callOk(reviewer, "memory_promote", { name: "ops-backup", to: "confirmed", reason: "still right" });
    await callOk(reviewer, "memory_promote", { name: "deploy-freeze", to: "deprecated", reason: "rule dropped" });
    await store("deploy-windows", "shared", "Deploys run Tuesday to Thursday");
    await callOk(writer, "memory_recall", { keywords: ["deploy"] });
    await callOk(writer, "memory_recall", { keywords: ["zyxwvutsrq"] });
    await backdate("status_at", "ops-backup", "40 days");

    const text = await metrics();
    expect(value(text, 'agent_memory_review_backlog{scope="shared"}')).toBe(2);
    expect(value(text, 'agent_memory_review_backlog{scope="ops"}')).toBe(1);
    expect(value(text, 'agent_memory_review_backlog_oldest_seconds{scope="shared"}')).toBeGreaterThanOrEqual(7200);
    expect(value(text, 'agent_memory_review_backlog_oldest_seconds{scope="shared"}')).toBeLessThan(7300);
    expect(value(text, 'agent_memory_stale_facts{scope="ops"}')).toBe(1);
    expect(value(text, 'agent_memory_stale_facts{scope="shared"}')).toBe(0);
    expect(value(text, 'agent_memory_reviews_total{outcome="confirmed"}')).toBe(1);
    expect(value(text, 'agent_memory_reviews_total{outcome="reconfirmed"}')).toBe(1);
    expect(value(text, 'agent_memory_reviews_total{outcome="deprecated"}')).toBe(1);
    expect(value(text, "agent_memory_duplicate_warnings_total")).toBe(1);
    expect(value(text, 'agent_memory_recalls_total{result="hits"}')).toBe(1);
    expect(value(text, 'agent_memory_recalls_total{result="empty"}')).toBe(1);
    expect(value(text, 'agent_memory_secrets_refused_total{kind="github"}')).toBe(0);

    // The Grafana dashboard in docs/ asks only for metrics the service exports.
    const dashboard = JSON.parse(await readFile(new URL("../../docs/grafana-dashboard.json", import.meta.url), "utf8")) as { panels: { targets: { expr: string }[] }[] };
    const asked = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/agent_memory_[a-z_]+/g) ?? [])));
    expect(asked.size).toBeGreaterThanOrEqual(7);
    // A histogram's series (_bucket, _sum, _count) are typed under its own name.
    for (const name of asked) expect(text, name).toMatch(new RegExp(`^# TYPE (${name}|${name.replace(/_(bucket|sum|count)$/, "")} histogram)`, "m"));
  });

  it("answers a flood of scrapes with one reading, and no scrape writes the day's sample", async () => {
    const source = service.deps.metrics.health.source!;
    let readings = 0;
    service.deps.metrics.health.source = () => {
      readings++;
      return source();
    };
    const before = (await tdb.db.query<{ n: number }>("select count(*)::int as n from memory_health_days")).rows[0]!.n;
    try {
      await Promise.all(Array.from({ length: 40 }, () => metrics()));
      expect(readings).toBeLessThanOrEqual(1);
    } finally {
      service.deps.metrics.health.source = source;
    }
    expect((await tdb.db.query<{ n: number }>("select count(*)::int as n from memory_health_days")).rows[0]!.n).toBe(before);
    // The service wrote today's sample at start; another write on the same day changes nothing.
    const today = async () => (await tdb.db.query<{ rows: string }>("select coalesce(string_agg(scope || ':' || drafts, ',' order by scope), '') as rows from memory_health_days where day = current_date")).rows[0]!.rows;
    const sampled = await today();
    expect(sampled).not.toBe("");
    await sampleHealthToday(tdb.db, 30);
    expect(await today()).toBe(sampled);
  });
});

describe("health series: scope names only with METRICS_TOKEN, bounded in number", () => {
  const figures = Array.from({ length: HEALTH_SCOPES_NAMED + 5 }, (_, i) => ({ scope: `team-${i}`, drafts: i, oldestDraftSeconds: i * 10, stale: i % 2 }));

  it("adds every scope up into one series without scope labels", () => {
    expect(healthSeries(figures, false)).toEqual([{ scope: "all", drafts: 300, oldestDraftSeconds: 240, stale: 12 }]);
  });

  it("names the scopes with the largest backlog and adds up the rest as other", () => {
    const series = healthSeries(figures, true);
    expect(series).toHaveLength(HEALTH_SCOPES_NAMED + 1);
    expect(series[0]).toMatchObject({ scope: "team-24", drafts: 24 });
    expect(series.at(-1)).toEqual({ scope: "other", drafts: 0 + 1 + 2 + 3 + 4, oldestDraftSeconds: 40, stale: 2 });
  });
});

describe("memory health in /metrics across many scopes, without METRICS_TOKEN, and with the database down (postgres)", () => {
  let tdb: TestDatabase;
  const scopes = Array.from({ length: HEALTH_SCOPES_NAMED + 5 }, (_, i) => `team-${String(i).padStart(2, "0")}`);
  // Each service gets its own pool (a service closes its database when it stops).
  const serve = (env: Record<string, string> = {}) => startTestService(openPostgres({ ...TEST_TIMEOUTS, connectionString: tdb.url!, poolMax: 2, connectTimeoutMs: 2000 }), env);

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const writer = await callerOf(tdb.db, (await addAgent(tdb.db, "writer", { scopes: [...scopes, "hr-internal"] })).token);
    await storeFact(tdb.db, writer, { name: "layoff-runbook", scope: "hr-internal", description: "Runbook", type: "project", body: "b" }, { bodyMaxChars: 1000 });
    for (const [i, scope] of scopes.entries()) {
      for (let n = 0; n <= i % 3; n++) await storeFact(tdb.db, writer, { name: `note-${n}`, scope, description: `Note ${n} of ${scope}`, type: "project", body: "b" }, { bodyMaxChars: 1000, duplicateWarning: false });
    }
  });

  const backlog = (text: string) => [...text.matchAll(/^agent_memory_review_backlog\{scope="([^"]+)"\} (\d+)$/gm)].map((m) => ({ scope: m[1]!, drafts: Number(m[2]) }));

  it("names at most HEALTH_SCOPES_NAMED scopes to a scraper with METRICS_TOKEN, the rest added up as other", async () => {
    const service = await serve({ METRICS_TOKEN: "scrape-secret-0123456789abcdef0123456789" });
    const series = backlog(await (await fetch(`${service.url}/metrics`, { headers: { Authorization: "Bearer scrape-secret-0123456789abcdef0123456789" } })).text());
    expect(series).toHaveLength(HEALTH_SCOPES_NAMED + 1);
    expect(series.filter((s) => s.scope === "other")).toHaveLength(1);
    const total = (await tdb.db.query<{ n: number }>("select count(*)::int as n from facts where status = 'draft'")).rows[0]!.n;
    expect(series.reduce((n, s) => n + s.drafts, 0)).toBe(total);
  });

  it("names no scope to an unauthenticated scraper: one series, all scopes added up", async () => {
    const service = await serve();
    const text = await (await fetch(`${service.url}/metrics`)).text();
    expect(text).not.toContain("hr-internal");
    expect(text).not.toContain("team-");
    const total = (await tdb.db.query<{ n: number }>("select count(*)::int as n from facts where status = 'draft'")).rows[0]!.n;
    expect(backlog(text)).toEqual([{ scope: "all", drafts: total }]);
  });

  it("serves the other metrics, without the health gauges, while the database is down", async () => {
    const service = await serve();
    try {
      await adminQuery(`alter database ${tdb.name} allow_connections false`);
      await adminQuery("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", [tdb.name]);
      const res = await fetch(`${service.url}/metrics`);
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(text).toContain("agent_memory_tool_calls_total");
      expect(text).not.toMatch(/^agent_memory_review_backlog\{/m);
    } finally {
      await adminQuery(`alter database ${tdb.name} allow_connections true`);
    }
  });
});
