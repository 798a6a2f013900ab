// The duplicate warning of memory_store, through a real MCP client over HTTP
// on both backends: a new fact's answer lists the readable facts most like it
// (never one from a scope the caller cannot read), and the search uses the
// trigram index on name + description.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { SIMILAR_MAX, SIMILAR_THRESHOLD } from "../../src/facts/rules.js";
import { SIMILAR_FACTS } from "../../src/facts/sql.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";
import { type PlanNode, planNodes } from "../support/plans.js";

interface Similar {
  name: string;
  scope: string;
  status: string;
  version: number;
  similarity: number;
}

describe.each(BACKENDS)("duplicate warning on memory_store on %s", (backend) => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let writer: Client;
  let reviewer: Client;
  let insider: Client;

  const store = (client: Client, args: Record<string, unknown>) => client.callTool({ name: "memory_store", arguments: { type: "project", body: "Why: an incident. How: do it.", ...args } }) as Promise<CallToolResult>;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    service = await startInProcessService(tdb.db);
    const agents = await Promise.all([
      addAgent(tdb.db, "blog-writer", { scopes: ["shared"] }),
      addAgent(tdb.db, "qa-bot", { scopes: ["shared"] }),
      addAgent(tdb.db, "ops-bot", { scopes: ["shared", "ops"] }),
    ]);
    [writer, reviewer, insider] = (await Promise.all(agents.map((a) => connectClient(service, a.token, a.name)))) as [Client, Client, Client];
    await callOk(insider, "memory_store", { name: "deploy-needs-migration", description: "Run database migrations before deploying the API", type: "project", body: "Why: outage. How: migrate first." });
    await callOk(writer, "memory_promote", { name: "deploy-needs-migration", to: "confirmed", reason: "checked the runbook" });
    // The same rule in a scope the writer cannot read: must never show.
    await callOk(insider, "memory_store", { name: "deploy-needs-migrations", scope: "ops", description: "Run database migrations before deploying the API", type: "project", body: "Secret ops copy." });
    await callOk(insider, "memory_store", { name: "rollback-needs-keep-data", description: "Rollbacks need --keep-data or the job queue is wiped", type: "project", body: "Why: lost jobs." });
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
    // Not word for word any of them (that would list the identical ones only).
    const r = await store(insider, { name: "deploy-needs-db-migrations", scope: "ops", description: "Run the database migrations before deploying our API" });
    const similar = (r.structuredContent as { similar: Similar[] }).similar;
    expect(similar).toHaveLength(SIMILAR_MAX);
    expect(similar.map((x) => x.similarity)).toEqual([...similar.map((x) => x.similarity)].sort((a, b) => b - a));
    expect(similar.map((x) => x.name)).not.toContain("deploy-needs-db-migrations");
  });

  // The lookup runs beside the insert, so it may start after the new fact is
  // committed: it leaves the new fact out by scope and name, and still finds
  // a fact of the same name in another scope.
  it("the lookup leaves out the new fact itself even when it sees it, not its namesake in another scope", async () => {
    // Both ways: with the description stored word for word (found by the identical-description probe), and reworded (the trigram lookup).
    for (const description of ["Run database migrations before deploying the API", "Run database migrations before deploying the API!"]) {
      const params = (scope: string, name: string) => [`deploy-needs-migrations ${description}`, SIMILAR_THRESHOLD, true, [], scope, name, SIMILAR_MAX, description];
      const names = async (scope: string, name: string) =>
        (await tdb.db.query<{ name: string; scope: string }>(SIMILAR_FACTS, params(scope, name))).rows.map((r) => `${r.scope}/${r.name}`);
      const asOps = await names("ops", "deploy-needs-migrations");
      expect(asOps, description).not.toContain("ops/deploy-needs-migrations");
      expect(asOps.length, description).toBeGreaterThan(0);
      expect(await names("shared", "deploy-needs-migrations"), description).toContain("ops/deploy-needs-migrations");
    }
  });

  it("lists a fact with the same description first, whatever its name, and never one the caller cannot read", async () => {
    await callOk(insider, "memory_store", { name: "queue-drain-rule", scope: "ops", description: "Drain the queue", type: "project", body: "ops only" });
    await callOk(insider, "memory_store", { name: "queue-drain-rule", description: "Drain the queue", type: "project", body: "Why: lost jobs." });
    // A long name unlike the stored one: name and description together are far
    // below the threshold (0.29), but the same one-line description is a duplicate by itself.
    const r = await store(writer, { name: "rollback-procedure-for-billing-workers", description: "drain the queue" });
    const s = r.structuredContent as { similar?: Similar[] };
    expect(s.similar?.map((x) => `${x.scope}/${x.name}`)).toEqual(["shared/queue-drain-rule"]);
    expect(textOf(r)).toContain("Similar facts exist:\n- queue-drain-rule (draft, scope shared, v1)");
  });

  it("identical ones alone when look-alikes exist too, and not a deprecated copy, which would hide its replacement", async () => {
    await callOk(insider, "memory_store", { name: "cache-warm-rule", description: "Warm the cache after every deploy", type: "project", body: "Why: cold starts." });
    for (const [i, d] of ["Warm the cache after every deploy!", "Warm the cache after each deploy", "Warm up the cache after every deploy"].entries()) {
      await callOk(insider, "memory_store", { name: `cache-warm-copy-${i}`, description: d, type: "project", body: "copy" });
    }
    const r = await store(writer, { name: "warm-cache-after-deploy", description: "Warm the cache after every deploy" });
    expect((r.structuredContent as { similar?: Similar[] }).similar?.map((x) => x.name)).toEqual(["cache-warm-rule"]);
    // Withdrawn as a duplicate: the next copy of its description is told about the live look-alikes instead.
    await callOk(reviewer, "memory_promote", { name: "warm-cache-after-deploy", to: "deprecated", reason: "duplicate of cache-warm-rule" });
    await callOk(reviewer, "memory_promote", { name: "cache-warm-rule", to: "deprecated", reason: "superseded by the cache-warm copies" });
    const again = await store(writer, { name: "warm-the-cache", description: "Warm the cache after every deploy" });
    const names = (again.structuredContent as { similar?: Similar[] }).similar?.map((x) => x.name) ?? [];
    expect(names).toHaveLength(SIMILAR_MAX);
    expect(names.some((n) => n.startsWith("cache-warm-copy-")), names.join()).toBe(true);
  });

  it("lists live look-alikes before withdrawn ones, though the withdrawn are more alike", async () => {
    // Three withdrawn near-copies, word for word but for one letter, and a live rewording.
    await callOk(insider, "memory_store", { name: "rotate-keys-monthly", description: "Rotate the signing keys on the first Monday of a month", type: "project", body: "Why: audit." });
    for (const i of [1, 2, 3]) {
      await callOk(insider, "memory_store", { name: `rotate-signing-key${i}`, description: `Rotate the signing keys on the first Monday of each month ${"!".repeat(i)}`, type: "project", body: "copy" });
      await callOk(insider, "memory_promote", { name: `rotate-signing-key${i}`, to: "deprecated", reason: "duplicate of rotate-keys-monthly" });
    }
    const r = await store(writer, { name: "rotate-signing-keys", description: "Rotate the signing keys on the first Monday of each month" });
    const similar = (r.structuredContent as { similar?: Similar[] }).similar ?? [];
    expect(similar.map((x) => x.status)).toEqual(["draft", "deprecated", "deprecated"]);
    expect(similar[0]!.name).toBe("rotate-keys-monthly");
    // The withdrawn ones were the more alike: only the order put the live one first.
    expect(similar[1]!.similarity).toBeGreaterThan(similar[0]!.similarity);
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

  it("am_similar_facts answers by index scans (the identical-description btree, then facts_duplicate_trgm), never a sequential scan", async () => {
    // The function's own two queries, taken from the database, with their arguments bound.
    const fn = (await tdb.db.query<{ prosrc: string; proconfig: string[] | null }>("select prosrc, proconfig from pg_proc where proname = 'am_similar_facts'")).rows[0]!;
    // The index plans, and those plans kept: planned once per connection, not on every store
    // (and its own search_path, which every function naming tables has: backup-restore.test.ts).
    expect(fn.proconfig?.filter((c) => !c.startsWith("search_path="))).toEqual(["enable_seqscan=off", "plan_cache_mode=force_generic_plan"]);
    const queries = [...fn.prosrc.matchAll(/return query([\s\S]*?);/g)].map((m) =>
      m[1]!
        .replace(/v_text/g, "am_duplicate_text($1::text)")
        .replace(/p_text/g, "$1::text")
        .replace(/p_new_scope/g, "$2::text")
        .replace(/p_new_name/g, "$3::text")
        .replace(/p_all/g, "$4::boolean")
        .replace(/p_scopes/g, "$5::text[]")
        .replace(/p_limit/g, "$6::int")
        .replace(/p_threshold/g, "$7::real")
        .replace(/p_description/g, "$8::text"),
    );
    expect(queries).toHaveLength(2);
    const params = ["deploy-needs-migration Run database migrations before deploying the API", "shared", "new-fact", false, ["shared"], 3, SIMILAR_THRESHOLD, "Run database migrations before deploying the API"];
    const expected = ["facts_description_lower", "facts_duplicate_trgm"];
    for (const [i, query] of queries.entries()) {
      await tdb.db.transaction(async (tx) => {
        await tx.query("select set_config('pg_trgm.word_similarity_threshold', $1::text, true), set_config('enable_seqscan', 'off', true)", [String(SIMILAR_THRESHOLD)]);
        // Every parameter referenced, so that each has a type even where the query does not use it.
        const all = "select $1::text, $2::text, $3::text, $4::boolean, $5::text[], $6::int, $7::real, $8::text";
        const r = await tx.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> | string }>(`explain (format json) select q.* from (${query}) q cross join (${all}) p`, params);
        const raw = r.rows[0]!["QUERY PLAN"];
        const plan = (typeof raw === "string" ? (JSON.parse(raw) as Array<{ Plan: PlanNode }>) : raw)[0]!.Plan;
        const summary = planNodes(plan).map((n) => `${n["Node Type"]}${n["Relation Name"] ? ` on ${n["Relation Name"]}` : ""}${n["Index Name"] ? ` using ${n["Index Name"]}` : ""}`);
        expect(planNodes(plan).map((n) => n["Index Name"]), summary.join("\n")).toContain(expected[i]);
        expect(summary.filter((x) => x.startsWith("Seq Scan on facts")), summary.join("\n")).toEqual([]);
      });
    }
  });
});
