// The duplicate warning of memory_store, through a real MCP client over HTTP
// on both backends: a new fact's answer lists the readable facts most like it
// (never one from a scope the caller cannot read), and the search uses the
// trigram index on name + description.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIMILAR_MAX, SIMILAR_THRESHOLD } from "../../src/facts/rules.js";
import { SIMILAR_FACTS } from "../../src/facts/sql.js";
import type { RunningService } from "../../src/serve.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startTestService, textOf } from "../support/service.js";

interface Similar {
  name: string;
  scope: string;
  status: string;
  version: number;
  similarity: number;
}

describe.each(BACKENDS)("duplicate warning on memory_store on %s", (backend) => {
  let tdb: TestDatabase;
  let service: RunningService;
  let writer: Client;
  let reviewer: Client;
  let insider: Client;

  const store = (client: Client, args: Record<string, unknown>) => client.callTool({ name: "memory_store", arguments: { type: "project", body: "Why: an incident. How: do it.", ...args } }) as Promise<CallToolResult>;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    service = await startTestService(tdb.db);
    const agents = await Promise.all([
      addAgent(tdb.db, "blog-writer", { scopes: ["shared"] }),
      addAgent(tdb.db, "qa-bot", { scopes: ["shared"] }),
      addAgent(tdb.db, "ops-bot", { scopes: ["shared", "ops"] }),
    ]);
    [writer, reviewer, insider] = (await Promise.all(agents.map((a) => connectClient(service.mcpUrl, a.token, a.name)))) as [Client, Client, Client];
    await callOk(insider, "memory_store", { name: "deploy-needs-migration", description: "Run database migrations before deploying the API", type: "project", body: "Why: outage. How: migrate first." });
    await callOk(writer, "memory_promote", { name: "deploy-needs-migration", to: "confirmed", reason: "checked the runbook" });
    // The same rule in a scope the writer cannot read: must never show.
    await callOk(insider, "memory_store", { name: "deploy-needs-migrations", scope: "ops", description: "Run database migrations before deploying the API", type: "project", body: "Secret ops copy." });
    await callOk(insider, "memory_store", { name: "rollback-needs-keep-data", description: "Rollbacks need --keep-data or the job queue is wiped", type: "project", body: "Why: lost jobs." });
  });
  afterAll(async () => {
    await Promise.all([writer, reviewer, insider].map((c) => c?.close()));
    await service?.stop();
    await tdb?.drop();
  });

  it("lists the readable similar facts in the text and the structured answer, and stores the fact anyway", async () => {
    const r = await store(writer, { name: "migrate-before-deploy", description: "Always run the database migrations before a deploy" });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as { outcome: string; similar?: Similar[] };
    expect(s.outcome).toBe("created");
    expect(s.similar?.map((x) => [x.name, x.scope, x.status, x.version])).toEqual([["deploy-needs-migration", "shared", "confirmed", 1]]);
    expect(s.similar![0]!.similarity).toBeGreaterThanOrEqual(SIMILAR_THRESHOLD);
    const text = textOf(r);
    expect(text).toContain("Similar facts exist:\n- deploy-needs-migration (confirmed, scope shared, v1): Run database migrations before deploying the API");
    expect(text).toContain("update that one instead (memory_store with its name and version)");
    expect(text).not.toContain("scope ops");
    // The same advice in the structured answer: some clients show their model nothing else.
    expect((s as { similarAdvice?: string }).similarAdvice).toContain("update that one instead (memory_store with its name and version)");
  });

  it("a reader of the other scope sees both, most similar first, at most three", async () => {
    for (const [i, d] of ["Run the database migrations before deploying the API", "Run database migrations before deploying the API now", "Run database migrations before deploying an API"].entries()) {
      await callOk(insider, "memory_store", { name: `deploy-migrations-copy-${i}`, scope: "ops", description: d, type: "project", body: "copy" });
    }
    const r = await store(insider, { name: "deploy-needs-db-migrations", scope: "ops", description: "Run database migrations before deploying the API" });
    const similar = (r.structuredContent as { similar: Similar[] }).similar;
    expect(similar).toHaveLength(SIMILAR_MAX);
    expect(similar.map((x) => x.similarity)).toEqual([...similar.map((x) => x.similarity)].sort((a, b) => b - a));
    expect(similar.map((x) => x.name)).not.toContain("deploy-needs-db-migrations");
  });

  // The lookup runs beside the insert, so it may start after the new fact is
  // committed: it leaves the new fact out by scope and name, and still finds
  // a fact of the same name in another scope.
  it("the lookup leaves out the new fact itself even when it sees it, not its namesake in another scope", async () => {
    const params = (scope: string, name: string) => ["deploy-needs-migrations Run database migrations before deploying the API", SIMILAR_THRESHOLD, true, [], scope, name, SIMILAR_MAX];
    const names = async (scope: string, name: string) =>
      (await tdb.db.query<{ name: string; scope: string }>(SIMILAR_FACTS, params(scope, name))).rows.map((r) => `${r.scope}/${r.name}`);
    const asOps = await names("ops", "deploy-needs-migrations");
    expect(asOps).not.toContain("ops/deploy-needs-migrations");
    expect(asOps.length).toBeGreaterThan(0);
    expect(await names("shared", "deploy-needs-migrations")).toContain("ops/deploy-needs-migrations");
  });

  it("says nothing when no fact is alike, and never on an update", async () => {
    const fresh = await store(writer, { name: "sitemap-owner", description: "The sitemap generator belongs to the SEO team" });
    expect((fresh.structuredContent as { similar?: unknown }).similar).toBeUndefined();
    expect((fresh.structuredContent as { similarAdvice?: unknown }).similarAdvice).toBeUndefined();
    expect(textOf(fresh)).not.toContain("Similar facts");
    const updated = await store(writer, { name: "migrate-before-deploy", version: 1, description: "Run database migrations before deploying the API" });
    expect((updated.structuredContent as { outcome: string; similar?: unknown })).toMatchObject({ outcome: "updated" });
    expect((updated.structuredContent as { similar?: unknown }).similar).toBeUndefined();
  });
});

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}
const nodes = (p: PlanNode): PlanNode[] => [p, ...(p.Plans ?? []).flatMap(nodes)];

describe.each(BACKENDS)("duplicate search plan on %s", (backend) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    await addAgent(tdb.db, "writer", { scopes: ["shared"] });
    await tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'shared', 'generated-' || i, 'Run step ' || i || ' before the change to area ' || (i % 97), 'project', 'body ' || i,
              (select id from agents where name = 'writer')
         from generate_series(1, 4000) as i`,
    );
    await tdb.db.query("vacuum analyze facts");
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it("am_similar_facts answers with a bitmap scan of facts_head_trgm, not a sequential scan", async () => {
    // The function's own query, taken from the database, with its arguments bound.
    const fn = (await tdb.db.query<{ prosrc: string; proconfig: string[] | null }>("select prosrc, proconfig from pg_proc where proname = 'am_similar_facts'")).rows[0]!;
    const src = fn.prosrc;
    // The index plan, and (000017) that plan kept: planned once per connection, not on every store.
    expect(fn.proconfig).toEqual(["enable_seqscan=off", "plan_cache_mode=force_generic_plan"]);
    const body = /return query([\s\S]*?);\s*end/.exec(src)![1]!;
    const query = body
      .replace(/p_text/g, "$1::text")
      .replace(/p_exclude/g, "$2::bigint")
      .replace(/p_all/g, "$3::boolean")
      .replace(/p_scopes/g, "$4::text[]")
      .replace(/p_limit/g, "$5::int")
      .replace(/p_threshold/g, "$6::real");
    const params = ["deploy-needs-migration Run database migrations before deploying the API", 0, false, ["shared"], 3, SIMILAR_THRESHOLD];
    await tdb.db.transaction(async (tx) => {
      await tx.query("select set_config('pg_trgm.word_similarity_threshold', $1::text, true), set_config('enable_seqscan', 'off', true)", [String(SIMILAR_THRESHOLD)]);
      const r = await tx.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> | string }>(`explain (format json) ${query}`, params);
      const raw = r.rows[0]!["QUERY PLAN"];
      const plan = (typeof raw === "string" ? (JSON.parse(raw) as Array<{ Plan: PlanNode }>) : raw)[0]!.Plan;
      const summary = nodes(plan).map((n) => `${n["Node Type"]}${n["Relation Name"] ? ` on ${n["Relation Name"]}` : ""}${n["Index Name"] ? ` using ${n["Index Name"]}` : ""}`);
      expect(summary, summary.join("\n")).toContain("Bitmap Index Scan using facts_head_trgm");
      expect(summary.filter((s) => s.startsWith("Seq Scan on facts")), summary.join("\n")).toEqual([]);
    });
  });
});
