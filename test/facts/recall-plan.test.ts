// The service runs recall through am_recall (am_recall), a
// PL/pgSQL function that keeps one generic plan of its statement per connection and
// never scans the whole table. These tests hold the function to the
// statement: same text, same answers, and on a small table (where the planner
// would compute the similarity of every fact for a typo) the facts are read
// through the indexes only.
import { beforeAll, describe, expect, it } from "vitest";
import { recallParams } from "../../src/facts/recall/recall.js";
import { RECALL_CALL } from "../../src/facts/recall/recall-sql.js";
import { functionStatement } from "../support/plans.js";
import { parseKeywords } from "../../src/facts/rules.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller, fact, store } from "./helpers.js";

const ALL = { all: true, scopes: [] as string[] };

describe.each(BACKENDS)("am_recall on %s", (backend) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const writer = await addCaller(tdb.db, "writer", { scopes: ["shared", "team"] });
    const facts: Array<[string, string, string, string]> = [
      ["migrate-before-deploy", "shared", "Run the database migration before every deploy", "Why: deploy 41 failed on a missing column."],
      ["flaky-suite", "team", "Integration tests are flaky on Mondays", "Retry once; then open a ticket."],
      ["deploy-ja", "shared", "本番デプロイの前にマイグレーションを実行する", "理由: カラムが足りなかった。"],
      ["percent-rule", "shared", "Batches hold 1000 items", "Never more than 100% of the quota."],
    ];
    for (const [name, scope, description, body] of facts) await store(tdb.db, writer, fact(name, { scope, description, body }));
    // A few hundred more, so that "every fact" and "the index" are far apart.
    await tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'shared', 'bulk-' || i, 'Generated rule number ' || i || ' about caches and queues', 'project', 'Body of rule ' || i, $1::bigint
         from generate_series(1, 300) as i`,
      [writer.agentId],
    );
    await tdb.db.query("vacuum analyze facts");
  });

  const cases: Array<[string, string[], { all: boolean; scopes: string[] }]> = [
    ["an exact keyword", ["deploy"], ALL],
    ["words in another order", ["flaky test"], ALL],
    ["a typo (near match)", ["migartion"], ALL],
    ["a quoted phrase", ['"database migration"'], ALL],
    ["Japanese", ["マイグレーション"], ALL],
    ["several keywords, one scope", ["deploy", "queues", "100%"], { all: false, scopes: ["shared"] }],
    ["many hits, cut at the limit", ["rule"], ALL],
    ["nothing", ["zyxwvutsrq"], ALL],
  ];

  it.each(cases)("answers %s exactly as the statement does", async (_what, keywords, readable) => {
    const params = recallParams(parseKeywords(keywords), readable, {}, 10);
    const direct = (await tdb.db.query<Record<string, unknown>>(await functionStatement(tdb.db, "am_recall"), params)).rows;
    const viaFunction = (await tdb.db.query<{ r: Record<string, unknown> }>(RECALL_CALL, params)).rows.map((x) => x.r);
    const key = (r: Record<string, unknown>) => [r.name, r.scope, Number(r.total), r.exact_levels, r.near_levels, r.body];
    expect(viaFunction.map(key)).toEqual(direct.map(key));
    expect(viaFunction.length).toBeGreaterThan(keywords[0] === "zyxwvutsrq" ? -1 : 0);
  });

  it("keeps the search indexes' pending lists short (every search reads the whole list; the baseline's fastupdate = off)", async () => {
    const rows = (
      await tdb.db.query<{ index: string; options: string[] | null }>(
        `select c.relname as index, c.reloptions as options
           from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am am on am.oid = c.relam
          where i.indrelid = 'facts'::regclass and am.amname = 'gin' order by 1`,
      )
    ).rows;
    expect(rows.map((r) => r.index)).toEqual(["facts_cjk_grams", "facts_duplicate_trgm", "facts_exact_trgm", "facts_near_words", "facts_search_cjk", "facts_search_words"]);
    for (const r of rows) expect(r.options, r.index).toContain("gin_pending_list_limit=64");
  });

  it("a typo on a small table reads facts through the indexes only, never every fact", async () => {
    // Counted within one transaction (pg_stat_xact_*: this transaction's own scans).
    const scans = await tdb.db.transaction(async (tx) => {
      const count = async () =>
        (await tx.query<{ seq: number; idx: number }>("select seq_scan::int as seq, idx_scan::int as idx from pg_stat_xact_user_tables where relname = 'facts'")).rows[0]!;
      const before = await count();
      const hits = (await tx.query<{ r: { name: string } }>(RECALL_CALL, recallParams(parseKeywords(["migartion"]), ALL, {}, 10))).rows;
      const after = await count();
      return { hits: hits.map((h) => h.r.name), seq: after.seq - before.seq, idx: after.idx - before.idx };
    });
    expect(scans.hits).toContain("migrate-before-deploy");
    expect(scans.idx).toBeGreaterThan(0);
    expect(scans.seq).toBe(0);
  });
});
