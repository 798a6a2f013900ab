// Memory health in /metrics, read back after real MCP calls: the review
// backlog and its oldest draft by scope, stale facts, reviews by outcome,
// duplicate warnings, and recalls with and without hits.
import { readFile } from "node:fs/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/serve.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startTestService } from "../support/service.js";

describe.each(["postgres", "pglite"] as const)("memory health in /metrics (%s)", (kind) => {
  let tdb: TestDatabase;
  let service: RunningService;
  let writer: Client;
  let reviewer: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase(kind);
    service = await startTestService(tdb.db, { STALE_AFTER_DAYS: "30" });
    writer = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "writer", { scopes: ["shared", "ops"] })).token);
    reviewer = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "reviewer", { scopes: ["shared", "ops"] })).token);
  });
  afterAll(async () => {
    await writer?.close();
    await reviewer?.close();
    await service?.stop();
    await tdb?.drop();
  });

  const metrics = async () => (await fetch(`${service.url}/metrics`)).text();
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
    for (const name of asked) expect(text, name).toMatch(new RegExp(`^# TYPE ${name} `, "m"));
  });
});
