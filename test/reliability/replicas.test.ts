// Two replicas: two `agent-memory serve` processes on different ports against one
// Postgres database, as behind a load balancer. Clients spread over both race on
// the same fact promotions, ledger claims and records, and graph entities; every
// guarantee that holds within one process must hold across the two.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, onlyJson } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { callToolOk, callRetrying, type Outcome, type Replica, startReplica, stopAllReplicas } from "./support.js";

const RACERS = 16;

let tdb: TestDatabase;
let replicas: Replica[];
let author: TestAgent;
let racers: TestAgent[];

beforeAll(async () => {
  tdb = await createTestDatabase("postgres", { poolMax: 3 });
  replicas = await Promise.all([startReplica(tdb.url!), startReplica(tdb.url!)]);
  author = await addAgent(tdb.db, "author");
  racers = [];
  for (let i = 0; i < RACERS; i++) racers.push(await addAgent(tdb.db, `racer-${String(i).padStart(2, "0")}`));
});
afterAll(async () => {
  await stopAllReplicas();
});

/** Racer i talks to replica i % 2. */
const via = (i: number) => replicas[i % 2]!.mcpUrl;

/** Every racer calls at once (retrying "retry" answers, as agents do); returns who was finally told what. */
function race(tool: string, args: (i: number) => Record<string, unknown>): Promise<Array<{ agent: string; outcome: Outcome }>> {
  return Promise.all(racers.map(async (r, i) => ({ agent: r.name, outcome: await callRetrying(via(i), r.token, tool, args(i)) })));
}

const winners = (results: Array<{ agent: string; outcome: Outcome }>) => results.filter((r) => r.outcome.kind === "ok");
const refusedTexts = (results: Array<{ agent: string; outcome: Outcome }>) =>
  results.map((r) => r.outcome).map((o) => (o.kind === "refused" ? o.text : `not a refusal: ${JSON.stringify(o)}`));

describe("two replicas on one database", () => {
  it("both replicas answer, each a separate process", async () => {
    expect(new Set(replicas.map((r) => r.pid)).size).toBe(2);
    expect(new Set(replicas.map((r) => r.url)).size).toBe(2);
    for (const r of replicas) expect((await fetch(`${r.url}/readyz`)).status).toBe(200);
  });

  it("facts: one confirmation of a contested draft, one winner of a version race, no duplicate creation", async () => {
    await callToolOk(via(0), author.token, "memory_store", { name: "contested", description: "a contested draft", type: "project", body: "b" });
    const confirms = await race("memory_promote", () => ({ name: "contested", to: "confirmed", reason: "checked" }));
    expect(winners(confirms)).toHaveLength(1);
    const confirmer = winners(confirms)[0]!.agent;
    for (const text of refusedTexts(confirms.filter((r) => r.agent !== confirmer))) expect(text).toContain(`already confirmed (by ${confirmer}`);

    // Everyone updates version 1 at once: optimistic concurrency lets exactly one through.
    const updates = await race("memory_store", (i) => ({ name: "contested", description: `rewrite ${i}`, type: "project", body: `body ${i}`, version: 1 }));
    expect(winners(updates)).toHaveLength(1);
    for (const text of refusedTexts(updates.filter((r) => r.outcome.kind !== "ok"))) expect(text).toContain("the current version is 2");

    // Everyone creates the same new name: one creation, the rest told it exists.
    const creations = await race("memory_store", (i) => ({ name: "same-name", description: `by racer ${i}`, type: "reference", body: "x" }));
    expect(winners(creations)).toHaveLength(1);
    for (const text of refusedTexts(creations.filter((r) => r.outcome.kind !== "ok"))) expect(text).toContain('A fact named "same-name" already exists');

    const rows = await tdb.db.query<{ name: string; versions: number; events: string }>(
      `select f.name, (select count(*)::int from fact_versions v where v.fact_id = f.id) as versions,
              (select string_agg(e.kind, ',' order by e.id) from fact_events e where e.fact_id = f.id) as events
         from facts f order by f.name`,
    );
    expect(rows.rows).toEqual([
      { name: "contested", versions: 2, events: "created,confirmed,updated" },
      { name: "same-name", versions: 1, events: "created" },
    ]);
  });

  it("ledger: one claim, one record (the holder's), and an intact chain after a mixed load from both replicas", async () => {
    const key = { action: "deploy_prod", target: "release-42" };
    const claims = await race("ledger_claim", () => key);
    expect(winners(claims)).toHaveLength(1);
    const holder = winners(claims)[0]!.agent;

    const records = await race("ledger_record", (i) => ({ ...key, evidence: `https://ci.example/${i}` }));
    expect(winners(records).map((w) => w.agent)).toEqual([holder]);
    const executed = await tdb.db.query<{ actor: string }>("select actor from ledger_events where kind = 'executed' and action = $1 and target = $2", [
      key.action,
      key.target,
    ]);
    expect(executed.rows).toEqual([{ actor: holder }]);

    // Distinct keys from everyone through both replicas: nothing lost, one gap-free chain.
    const perRacer = 8;
    const failures: Outcome[] = [];
    await Promise.all(
      racers.map(async (r, i) => {
        for (let n = 0; n < perRacer; n++) {
          const k = { action: "publish_post", target: `${r.name}/${n}` };
          for (const [tool, extra] of [["ledger_claim", {}], ["ledger_record", { evidence: `https://blog.example/${r.name}/${n}` }]] as const) {
            const o = await callRetrying(via(i + n), r.token, tool, { ...k, ...extra });
            if (o.kind !== "ok") failures.push(o);
          }
        }
      }),
    );
    expect(failures).toEqual([]);
    const published = await tdb.db.query<{ n: number }>("select count(*)::int as n from ledger_events where kind = 'executed' and action = 'publish_post'");
    expect(published.rows[0]!.n).toBe(RACERS * perRacer);

    const verify = await runCli(["ledger", "verify", "--json"], { DATABASE_URL: tdb.url });
    expect(verify.code).toBe(0);
    const total = await tdb.db.query<{ n: number }>("select count(*)::int as n from ledger_events");
    expect(onlyJson(verify)).toMatchObject({ ok: true, rows: total.rows[0]!.n });
  });

  it("graph: each entity created once, no observation lost, one relation per triple", async () => {
    const names = Array.from({ length: 8 }, (_, i) => `Service ${i}`);
    // Overlapping batches in opposite orders from both replicas.
    const creations = await race("create_entities", (i) => ({
      entities: (i % 2 ? [...names].reverse() : names).map((name) => ({ name, entityType: "service", observations: [`seen by racer ${i}`] })),
    }));
    const created = creations.flatMap((c) => (c.outcome.kind === "ok" ? (c.outcome.result.structuredContent as { entities: Array<{ name: string }> }).entities : []));
    expect(creations.filter((c) => c.outcome.kind !== "ok")).toEqual([]);
    expect(created.map((e) => e.name).sort()).toEqual([...names].sort());

    const added = await race("add_observations", (i) => ({ observations: [{ entityName: "Service 0", contents: [`note ${i}`, "common note"] }] }));
    expect(added.filter((a) => a.outcome.kind !== "ok")).toEqual([]);
    const reportedCommon = added.filter(
      (a) => a.outcome.kind === "ok" && (a.outcome.result.structuredContent as { results: Array<{ addedObservations: string[] }> }).results[0]!.addedObservations.includes("common note"),
    );
    expect(reportedCommon).toHaveLength(1);

    const relations = await race("create_relations", () => ({ relations: [{ from: "Service 0", to: "Service 1", relationType: "calls" }] }));
    expect(winners(relations)).toHaveLength(RACERS);
    const reportedRelations = relations.flatMap((r) => (r.outcome.kind === "ok" ? (r.outcome.result.structuredContent as { relations: unknown[] }).relations : []));
    expect(reportedRelations).toHaveLength(1);

    const counts = await tdb.db.query<{ entities: number; service0_obs: number; relations: number }>(
      `select (select count(*)::int from graph_entities) as entities,
              (select count(*)::int from graph_observations o join graph_entities e on e.id = o.entity_id where e.name = 'Service 0') as service0_obs,
              (select count(*)::int from graph_relations) as relations`,
    );
    // Service 0: its creator's observation, one note per racer, the common note once.
    expect(counts.rows[0]).toEqual({ entities: names.length, service0_obs: 1 + RACERS + 1, relations: 1 });
  });
});
