// Recall's near matches (typos) do work bounded by constants (security audit,
// High): ten keywords that match nothing exactly ("alphx", "betx", …) were each
// looked up by word similarity over the whole text of every fact the trigram
// index proposed. With 200 facts of 16,000 characters in the caller's own scope
// every call ran past the 10 s statement timeout, and on the embedded database
// the watchdog restarted the worker each time while other agents waited.
//
// Counted, not timed: EXPLAIN ANALYZE of RECALL gives, for every scan of the
// near lookups (the vocabulary, fact_words, and the facts holding a correction,
// through facts_near_words), the rows
// it read (kept, removed by the index recheck, removed by a filter) times its
// loops. Facts read must stay within RECALL_NEAR_MAX_FACTS, vocabulary words
// within RECALL_NEAR_WORD_CANDIDATES per keyword word, and the text looked up
// must be the bounded one (name, description, first 1,000 characters of
// the body), on both databases, with or without filters that drop every fact
// read.
//
// Also over facts written to defeat the lookup (security review of 000032):
// 3,000 facts each holding half the trigrams of eight typo keywords in words
// far apart ("hx zqzq al" for "alphx"). The trigram lookup's index proposed
// every one and its check rejected every one, uncounted (24,000 rows, 4.7 s a
// recall on Postgres); the rows read now do not grow with their number.
import { beforeAll, describe, expect, it } from "vitest";
import { recallParams } from "../../src/facts/recall/recall.js";
import { RECALL_CALL } from "../../src/facts/recall/recall-sql.js";
import { parseKeywords, RECALL_NEAR_MAX_FACTS, RECALL_NEAR_WORD_CANDIDATES } from "../../src/facts/rules.js";
import type { Database } from "../../src/db/core/database.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller } from "./helpers.js";
import { type AnalyzedPlanNode, explainFunction, functionStatement, planNodes } from "../support/plans.js";

// How Postgres prints the bounded body in a plan or an index definition: "left"(body, 1000).
// The plans show am_fact_search_text inlined: the first 1,000 characters of the body (am_fact_search_body).
const BOUNDED_TEXT = /"?left"?\(body, 1000\)/;

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

  const nearScans = (readable: { all: boolean; scopes: string[] }, filters: { status?: "deprecated"; scope?: string }) => near(tdb.db, TYPOS, readable, filters);

  it.each([
    ["a reader of every scope", { all: true, scopes: [] as string[] }, {}, ["mal", "other"]],
    ["a reader of its own scope, beside as many facts it cannot read", { all: false, scopes: ["mal"] }, {}, ["mal"]],
    ["a scope filter", { all: true, scopes: [] as string[] }, { scope: "mal" }, ["mal"]],
  ])("ten typo keywords over 200 facts of 16,000 characters, %s: at most RECALL_NEAR_MAX_FACTS texts", async (_who, readable, filters, scopes) => {
    const { scans, read, words, conditions, hits } = await nearScans(readable, filters);
    expect(scans.length).toBeGreaterThan(0);
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThanOrEqual(RECALL_NEAR_MAX_FACTS);
    expect(words).toBeGreaterThan(0);
    expect(words).toBeLessThanOrEqual(TYPOS.length * RECALL_NEAR_WORD_CANDIDATES);
    // Only the bounded text is tested, never the whole body.
    for (const c of conditions) expect(c).toMatch(BOUNDED_TEXT);
    // Still found: every fact readable here is near every typo; none of another scope.
    expect(hits).toHaveLength(10);
    expect(hits.filter((h) => !scopes.includes(h.name.split("-")[0]!))).toEqual([]);
  });

  it("a filter that drops every fact read does not make the lookup read more", async () => {
    const { read, words, hits } = await nearScans({ all: false, scopes: ["mal"] }, { status: "deprecated" });
    expect(words).toBeLessThanOrEqual(TYPOS.length * RECALL_NEAR_WORD_CANDIDATES);
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThanOrEqual(RECALL_NEAR_MAX_FACTS);
    expect(hits).toEqual([]);
  });

  it("the index the near lookup uses is over exactly the text RECALL tests", async () => {
    for (const index of ["facts_near_words"]) {
      const r = await tdb.db.query<{ def: string }>(`select pg_get_indexdef('${index}'::regclass) as def`);
      expect(r.rows[0]!.def).toContain("am_near_words(am_fact_search_text(name, description, body))");
    }
    // The vocabulary's trigger reads the same text.
    const trigger = await tdb.db.query<{ src: string }>("select prosrc as src from pg_proc where proname = 'am_fact_words'");
    expect(trigger.rows[0]!.src).toContain("am_fact_search_text(new.name, new.description, new.body)");
    expect(await functionStatement(tdb.db, "am_recall")).toContain("am_fact_search_text(f.name, f.description, f.body)");
    // And that text holds the first 1,000 characters of a body, as the plans above test.
    expect((await tdb.db.query<{ n: number }>("select char_length(am_fact_search_body(repeat('x', 5000)))::int as n")).rows[0]!.n).toBe(1000);
  });
});

/**
 * The near lookups' scans in the plan of RECALL (EXPLAIN ANALYZE), and the
 * rows each read times its loops: `read` facts (scans of facts whose condition
 * is a near match: the words index), `words`
 * vocabulary rows (scans of fact_words). Rows removed by an index recheck or a
 * filter count as read.
 */
async function near(db: Database, keywords: string[], readable: { all: boolean; scopes: string[] }, filters: { status?: "deprecated"; scope?: string }) {
  const params = recallParams(parseKeywords(keywords), readable, filters, 10);
  const plan = await explainFunction<AnalyzedPlanNode>(db, "am_recall", params, { analyze: true });
  const conditions = (n: AnalyzedPlanNode) => [n["Recheck Cond"], n["Index Cond"], n.Filter].filter(Boolean).join(" ");
  const rowsRead = (nodes: AnalyzedPlanNode[]) =>
    nodes.reduce((sum, n) => sum + (n["Actual Rows"] + (n["Rows Removed by Index Recheck"] ?? 0) + (n["Rows Removed by Filter"] ?? 0)) * n["Actual Loops"], 0);
  const nodes = planNodes(plan);
  const scans = nodes.filter((n) => n["Relation Name"] === "facts" && /%>|am_near_words/.test(conditions(n)));
  const vocabulary = nodes.filter((n) => n["Relation Name"] === "fact_words");
  const hits = (await db.query<{ name: string; total: number }>(await functionStatement(db, "am_recall"), params)).rows;
  return { scans, read: rowsRead(scans), words: rowsRead(vocabulary), conditions: scans.map(conditions), hits, fetched: await fetched(db, params) };
}

/**
 * Rows of facts and of fact_words the statement fetched, exactly (Postgres 15's
 * EXPLAIN rounds a scan's rows per loop to whole numbers: 0.4 a loop shows 0):
 * the table statistics of the statement's own transaction, through am_recall
 * as the service runs it (its plan never scans a table sequentially).
 */
async function fetched(db: Database, params: unknown[]): Promise<{ facts: number; words: number }> {
  return db.transaction(async (tx) => {
    const counts = async () =>
      (
        await tx.query<{ table: string; n: string }>(
          `select relname as table, (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text as n
             from pg_stat_xact_user_tables where relname in ('facts', 'fact_words')`,
        )
      ).rows;
    const before = await counts();
    await tx.query(RECALL_CALL, params);
    const after = await counts();
    const delta = (t: string) => Number(after.find((r) => r.table === t)?.n ?? 0) - Number(before.find((r) => r.table === t)?.n ?? 0);
    return { facts: delta("facts"), words: delta("fact_words") };
  });
}

describe.each(BACKENDS)("near matches over facts written to defeat them on %s", (backend) => {
  let tdb: TestDatabase;
  let agentId: number;
  // Eight typo keywords; each decoy fact holds, per keyword, its first and last
  // two letters as words far apart: "  a", " al" and "hx " of "alphx", half its
  // trigrams, enough for the trigram index to propose the fact for word similarity;
  // and a word of its own ("decoy17"), so that the vocabulary grows with them too.
  const TYPO_KEYWORDS = ["alphx", "betax", "gammx", "deltx", "epsilox", "thetx", "kappx", "lambdx"];
  const decoyBody = TYPO_KEYWORDS.map((k) => `${k.slice(-2)} zqzq vwvw ${k.slice(0, 2)} yjyj kxkx`).join(" ") + " mnmn wvwv".repeat(80);
  const addDecoys = (from: number, count: number) =>
    tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'mal', 'decoy-' || i, 'decoy number ' || i, 'project', $2::text || ' decoy' || i, $1::bigint
         from generate_series($3::int, $3::int + $4::int - 1) as i`,
      [agentId, decoyBody, from, count],
    );

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    agentId = (await addCaller(tdb.db, "writer", { scopes: ["mal"] })).agentId;
    // One real word near the first typo, so that the vocabulary has a correction to look up.
    await tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id) values ('mal', 'real-alpha', 'the alpha release', 'project', 'Ship the alpha first.', $1::bigint)`,
      [agentId],
    );
  }, 300_000);

  it("reads as many rows over 3,000 decoys as over 300, within constants", async () => {
    const readable = { all: false, scopes: ["mal"] };
    await addDecoys(1, 300);
    await tdb.db.query("vacuum analyze facts");
    const small = await near(tdb.db, TYPO_KEYWORDS, readable, {});
    await addDecoys(301, 2700);
    await tdb.db.query("vacuum analyze facts");
    const large = await near(tdb.db, TYPO_KEYWORDS, readable, {});
    expect(small.hits.map((h) => h.name)).toEqual(["real-alpha"]);
    expect(large.hits.map((h) => h.name)).toEqual(["real-alpha"]);
    expect(large.read).toBe(small.read);
    expect(large.words).toBe(small.words);
    // Exactly, from the table statistics: the same rows of facts (every part of
    // the statement) and of the vocabulary at both sizes.
    expect(large.fetched).toEqual(small.fetched);
    expect(large.fetched.words).toBeLessThanOrEqual(TYPO_KEYWORDS.length * RECALL_NEAR_WORD_CANDIDATES);
    expect(large.read).toBeLessThanOrEqual(RECALL_NEAR_MAX_FACTS);
    expect(large.words).toBeLessThanOrEqual(TYPO_KEYWORDS.length * RECALL_NEAR_WORD_CANDIDATES);
  }, 300_000);
});
