// What one entity may carry, and what one delete may remove (security audit:
// 35 calls of 10,000 observations and 220 of 1,000 relations built an entity
// whose delete_entities ran into the statement timeout on every try, holding
// the embedded database's only connection meanwhile). The database keeps each
// entity's observation count and each name's relation count as rows are
// written, refuses a write past a bound whole, and delete_entities refuses up
// front what it could not remove in one short statement.
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import type { Database } from "../../src/db/core/database.js";
import { DomainError } from "../../src/errors.js";
import { addObservations, createEntities, createRelations, deleteEntities, deleteObservations, deleteRelations } from "../../src/graph/store.js";
import type { GraphWriter } from "../../src/graph/types.js";
import { MAX_DELETED_ROWS_PER_CALL } from "../../src/limits.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { loadPastBounds } from "../support/graph-bulk.js";

const texts = (prefix: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => `${prefix} ${from + i}`);

async function refusal(work: Promise<unknown>): Promise<DomainError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

async function counts(db: Database, scope: string, name: string) {
  const r = await db.query<{ kept: number; observations: number; relations: number }>(
    `select e.observation_count as kept,
       (select count(*) from graph_observations o where o.entity_id = e.id)::int as observations,
       coalesce((select relations from graph_relation_ends t where t.scope = e.scope and t.name_key = am_graph_key(e.name)), 0) as relations
     from graph_entities e where e.scope = $1 and e.name = $2`,
    [scope, name],
  );
  return r.rows[0];
}

describe.each(BACKENDS)("per-entity bounds on %s", (backend) => {
  let tdb: TestDatabase;
  let w: GraphWriter;
  let maxObservations: number;
  let maxRelations: number;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend, { statementTimeoutMs: 120_000 });
    const agent = await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["s"] });
    w = { scope: "s", agentId: agent.id, maxChars: 4096 };
    const r = await tdb.db.query<{ o: number; r: number }>("select am_graph_max_observations() as o, am_graph_max_relations() as r");
    maxObservations = r.rows[0]!.o;
    maxRelations = r.rows[0]!.r;
  }, 120_000);

  it("add_observations past the bound is refused whole, naming the entity and the limit; up to it is accepted", async () => {
    await createEntities(tdb.db, w, [{ name: "Full", entityType: "t", observations: texts("first", 10) }]);
    await addObservations(tdb.db, w, [{ entityName: "Full", contents: texts("more", maxObservations - 10) }]);
    expect(await counts(tdb.db, "s", "Full")).toMatchObject({ kept: maxObservations, observations: maxObservations });

    const error = await refusal(addObservations(tdb.db, w, [{ entityName: "Full", contents: ["one too many"] }]));
    expect(error.code).toBe("invalid");
    expect(error.message).toBe(
      `Entity "Full" would carry ${maxObservations + 1} observations; an entity carries at most ${maxObservations}. ` +
        "Delete observations that no longer hold (delete_observations), or put the rest on a new entity related to it. Nothing was written.",
    );
    expect(await counts(tdb.db, "s", "Full")).toMatchObject({ kept: maxObservations, observations: maxObservations });

    // A text already there adds nothing, so it is no step past the bound.
    await addObservations(tdb.db, w, [{ entityName: "Full", contents: ["more 0"] }]);
    // Deleting makes room again, and the count follows.
    await deleteObservations(tdb.db, w, [{ entityName: "Full", observations: ["first 0", "first 1"] }]);
    expect(await counts(tdb.db, "s", "Full")).toMatchObject({ kept: maxObservations - 2, observations: maxObservations - 2 });
    await addObservations(tdb.db, w, [{ entityName: "Full", contents: ["room again"] }]);
    expect(await counts(tdb.db, "s", "Full")).toMatchObject({ kept: maxObservations - 1, observations: maxObservations - 1 });
  });

  it("create_entities with more observations than an entity may carry is refused whole", async () => {
    const error = await refusal(
      createEntities(tdb.db, w, [
        { name: "Fine", entityType: "t", observations: ["a"] },
        { name: "Big", entityType: "t", observations: texts("x", maxObservations + 1) },
      ]),
    );
    expect(error.message).toMatch(/^Entity "Big" would carry \d+ observations; an entity carries at most \d+\./);
    const r = await tdb.db.query("select 1 from graph_entities where scope = 's' and name in ('Fine', 'Big')");
    expect(r.rows).toHaveLength(0);
  });

  it("relations from and to one name are bounded together, dangling names included; deletes make room", async () => {
    const half = Math.floor(maxRelations / 2);
    await createRelations(tdb.db, w, texts("out", half).map((to) => ({ from: "Hub", to, relationType: "r" })));
    await createRelations(tdb.db, w, texts("in", maxRelations - half).map((from) => ({ from, to: "Hub", relationType: "r" })));
    const error = await refusal(createRelations(tdb.db, w, [{ from: "Hub", to: "Hub", relationType: "self" }]));
    expect(error.message).toBe(
      `"Hub" would have ${maxRelations + 1} relations; a name has at most ${maxRelations}, from and to it together. ` +
        "Delete relations that no longer hold (delete_relations), or group them under intermediate entities. Nothing was written.",
    );
    const n = await tdb.db.query<{ n: number }>("select count(*)::int as n from graph_relations where scope = 's' and (from_name = 'Hub' or to_name = 'Hub')");
    expect(n.rows[0]!.n).toBe(maxRelations);

    await deleteRelations(tdb.db, w, [{ from: "Hub", to: "out 0", relationType: "r" }]);
    // A relation from a name to itself counts once.
    await createRelations(tdb.db, w, [{ from: "Hub", to: "Hub", relationType: "self" }]);
    const ends = await tdb.db.query<{ relations: number }>("select relations from graph_relation_ends where scope = 's' and name_key = am_graph_key('Hub')");
    expect(ends.rows[0]!.relations).toBe(maxRelations);
    // The far ends are counted too, and a name left without relations leaves no row.
    await deleteRelations(tdb.db, w, [{ from: "Hub", to: "out 1", relationType: "r" }]);
    const gone = await tdb.db.query("select 1 from graph_relation_ends where scope = 's' and name_key = am_graph_key('out 1')");
    expect(gone.rows).toHaveLength(0);
  });

  it("delete_entities refuses up front what one call may not remove, deletes nothing, and removes it in smaller calls", async () => {
    // Entities at both bounds, as many as it takes to pass one call's budget.
    const perEntity = maxObservations + maxRelations;
    const n = Math.floor(MAX_DELETED_ROWS_PER_CALL / perEntity) + 1;
    const names = texts("Heavy", n);
    for (const name of names) {
      await createEntities(tdb.db, w, [{ name, entityType: "t", observations: texts(name, maxObservations) }]);
      await createRelations(tdb.db, w, texts(`${name} spoke`, maxRelations).map((to) => ({ from: name, to, relationType: "r" })));
    }
    const error = await refusal(deleteEntities(tdb.db, w, names));
    expect(error.message).toBe(
      `These ${n} entities carry ${n * perEntity} observations and relations together; one delete_entities call removes at most ${MAX_DELETED_ROWS_PER_CALL}. ` +
        "Delete fewer entities per call. Nothing was deleted.",
    );
    const left = await tdb.db.query<{ n: number }>("select count(*)::int as n from graph_entities where scope = 's' and name like 'Heavy %'");
    expect(left.rows[0]!.n).toBe(n);

    const deleted = await deleteEntities(tdb.db, w, names.slice(0, n - 1));
    expect(deleted).toEqual({ entities: n - 1, relations: (n - 1) * maxRelations, observations: (n - 1) * maxObservations });
    expect(await deleteEntities(tdb.db, w, names.slice(n - 1))).toEqual({ entities: 1, relations: maxRelations, observations: maxObservations });
    const ends = await tdb.db.query("select 1 from graph_relation_ends where scope = 's' and name_key = any(am_graph_keys($1::text[]))", [names]);
    expect(ends.rows).toHaveLength(0);
  }, 120_000);

  it("an entity stored past the bounds before they existed is refused up front, and emptied by the calls the message names", async () => {
    await createEntities(tdb.db, w, [{ name: "Legacy", entityType: "t", observations: [] }]);
    await loadPastBounds(tdb.db, [
      [
        `insert into graph_observations (entity_id, scope, content, created_by)
         select (select id from graph_entities where scope = 's' and name = 'Legacy'), 's', 'old ' || i, $1 from generate_series(1, $2::int) i`,
        [w.agentId, MAX_DELETED_ROWS_PER_CALL + 1],
      ],
    ]);
    expect(await counts(tdb.db, "s", "Legacy")).toMatchObject({ kept: MAX_DELETED_ROWS_PER_CALL + 1 });
    const error = await refusal(deleteEntities(tdb.db, w, ["Legacy"]));
    expect(error.message).toMatch(/^These 1 entities carry 10001 observations and relations together/);
    await deleteObservations(tdb.db, w, [{ entityName: "Legacy", observations: texts("old", 2, 1) }]);
    expect(await deleteEntities(tdb.db, w, ["Legacy"])).toEqual({ entities: 1, relations: 0, observations: MAX_DELETED_ROWS_PER_CALL - 1 });
  }, 120_000);
});

describe("racing writers cannot pass a bound together (postgres)", () => {
  let tdb: TestDatabase;
  let w: GraphWriter;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const agent = await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["s"] });
    w = { scope: "s", agentId: agent.id, maxChars: 4096 };
  });

  it("two add_observations that each fit but not together: exactly one is written", async () => {
    const max = (await tdb.db.query<{ o: number }>("select am_graph_max_observations() as o")).rows[0]!.o;
    await createEntities(tdb.db, w, [{ name: "Shared", entityType: "t", observations: [] }]);
    const pools = [tdb.openPool(2), tdb.openPool(2)];
    const half = Math.floor(max / 2) + 1;
    const results = await Promise.allSettled(pools.map((db, i) => addObservations(db, w, [{ entityName: "Shared", contents: texts(`writer ${i}`, half) }])));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await counts(tdb.db, "s", "Shared")).toMatchObject({ kept: half, observations: half });
  });

  it("two create_relations to one name that each fit but not together: exactly one is written", async () => {
    const max = (await tdb.db.query<{ r: number }>("select am_graph_max_relations() as r")).rows[0]!.r;
    const pools = [tdb.openPool(2), tdb.openPool(2)];
    const half = Math.floor(max / 2) + 1;
    const results = await Promise.allSettled(
      pools.map((db, i) => createRelations(db, w, texts(`from ${i}`, half).map((from) => ({ from, to: "Target", relationType: "r" })))),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const ends = await tdb.db.query<{ relations: number }>("select relations from graph_relation_ends where scope = 's' and name_key = am_graph_key('Target')");
    expect(ends.rows[0]!.relations).toBe(half);
  });
});
