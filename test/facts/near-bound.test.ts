// Recall's near matches (typos) do work bounded by constants (security audit,
// High): ten keywords that match nothing exactly ("alphx", "betx", …) were each
// looked up by word similarity over the whole text of every fact the trigram
// index proposed. With 200 facts of 16,000 characters in the caller's own scope
// every call ran past the 10 s statement timeout, and on the embedded database
// the watchdog restarted the worker each time while other agents waited.
//
// Counted, not timed: EXPLAIN ANALYZE of RECALL gives, for every scan of facts
// that tests a near match (`%>`), the rows it read (kept, removed by the index
// recheck, removed by a filter) times its loops. Their sum must stay within
// RECALL_NEAR_MAX_FACTS, and the text tested must be the bounded one
// (name, description, first RECALL_NEAR_BODY_CHARS of the body), on both
// databases, with or without filters that drop every fact read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recallParams } from "../../src/facts/read.js";
import { RECALL } from "../../src/facts/recall-sql.js";
import { parseKeywords, RECALL_NEAR_BODY_CHARS, RECALL_NEAR_MAX_FACTS } from "../../src/facts/rules.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller } from "./helpers.js";
import { type AnalyzedPlanNode, planNodes } from "../support/plans.js";

// How Postgres prints the bounded body in a plan or an index definition: "left"(body, 1000).
const BOUNDED_TEXT = new RegExp(`"?left"?\\(body, ${RECALL_NEAR_BODY_CHARS}\\)`);

const FACTS = 200;
const BODY_CHARS = 16_000;
const TYPOS = ["alphx", "betx", "gammx", "deltx", "epsilox", "thetx", "kappx", "lambdx", "sigmx", "omegx"];
const WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma", "omega", "deploy", "release", "server", "the", "and"];

describe.each(BACKENDS)("near matches read a bounded number of bounded texts on %s", (backend) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend, { statementTimeoutMs: 120_000 }); // bulk loads
    const writer = await addCaller(tdb.db, "writer", { scopes: ["mal", "other"] });
    // The auditor's store: 200 facts of 16,000 characters in one scope, every
    // one holding a word each typo is near; as many in a scope the reader below cannot read.
    await tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select s.scope, s.scope || '-' || i, 'fact number ' || i || ' about the release', 'project',
              left((select string_agg(w[1 + ((i * 7 + k * 13) % array_length(w, 1))], ' ') from generate_series(1, 3000) as k), $2::int),
              $1::bigint
         from generate_series(1, ${FACTS}) as i, (values ('mal'), ('other')) as s(scope), (select $3::text[] as w) as words`,
      [writer.agentId, BODY_CHARS, WORDS],
    );
    await tdb.db.query("vacuum analyze facts");
  }, 300_000);
  afterAll(async () => {
    await tdb?.drop();
  });

  /** The scans of facts that test a near match (`%>`), and the matches found. */
  async function nearScans(readable: { all: boolean; scopes: string[] }, filters: { status?: "deprecated"; scope?: string }) {
    const params = recallParams(parseKeywords(TYPOS), readable, filters, 10);
    const r = await tdb.db.query<{ "QUERY PLAN": Array<{ Plan: AnalyzedPlanNode }> | string }>(`explain (analyze, format json) ${RECALL}`, params);
    const raw = r.rows[0]!["QUERY PLAN"];
    const plan = (typeof raw === "string" ? (JSON.parse(raw) as Array<{ Plan: AnalyzedPlanNode }>) : raw)[0]!.Plan;
    const conditions = (n: AnalyzedPlanNode) => [n["Recheck Cond"], n["Index Cond"], n.Filter].filter(Boolean).join(" ");
    const scans = planNodes(plan).filter((n) => n["Relation Name"] === "facts" && conditions(n).includes("%>"));
    const read = scans.reduce((sum, n) => sum + (n["Actual Rows"] + (n["Rows Removed by Index Recheck"] ?? 0) + (n["Rows Removed by Filter"] ?? 0)) * n["Actual Loops"], 0);
    const hits = (await tdb.db.query<{ name: string; total: number }>(RECALL, params)).rows;
    return { scans, read, conditions: scans.map(conditions), hits };
  }

  it.each([
    ["a reader of every scope", { all: true, scopes: [] as string[] }, {}, ["mal", "other"]],
    ["a reader of its own scope, beside as many facts it cannot read", { all: false, scopes: ["mal"] }, {}, ["mal"]],
    ["a scope filter", { all: true, scopes: [] as string[] }, { scope: "mal" }, ["mal"]],
  ])("ten typo keywords over 200 facts of 16,000 characters, %s: at most RECALL_NEAR_MAX_FACTS texts", async (_who, readable, filters, scopes) => {
    const { scans, read, conditions, hits } = await nearScans(readable, filters);
    expect(scans.length).toBeGreaterThan(0);
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThanOrEqual(RECALL_NEAR_MAX_FACTS);
    // Only the bounded text is tested, never the whole body.
    for (const c of conditions) expect(c).toMatch(BOUNDED_TEXT);
    // Still found: every fact readable here is near every typo; none of another scope.
    expect(hits).toHaveLength(10);
    expect(hits.filter((h) => !scopes.includes(h.name.split("-")[0]!))).toEqual([]);
  });

  it("a filter that drops every fact read does not make the lookup read more", async () => {
    const { read, hits } = await nearScans({ all: false, scopes: ["mal"] }, { status: "deprecated" });
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThanOrEqual(RECALL_NEAR_MAX_FACTS);
    expect(hits).toEqual([]);
  });

  it("the index the near lookup uses is over exactly the text RECALL tests", async () => {
    const r = await tdb.db.query<{ def: string }>("select pg_get_indexdef('facts_near_trgm'::regclass) as def");
    expect(r.rows[0]!.def).toMatch(BOUNDED_TEXT);
    expect(RECALL).toContain(`left(f.body, ${RECALL_NEAR_BODY_CHARS})`);
  });
});
