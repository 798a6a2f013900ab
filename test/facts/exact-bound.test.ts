// Recall's substring lookup (exact) never reads a fact the caller cannot read,
// and rechecks only the bounded text (security audit, stop 21, High): facts
// written to hold a keyword's trigrams apart, never the keyword, in a scope
// the victim cannot read, were proposed by the trigram index for every agent's
// recall and rechecked over their whole 16,000-character bodies (3,000 of
// them: 0.53 s a one-keyword recall, 3.9 s for ten keywords on Postgres).
//
// Counted, not timed: the rows of facts the statement fetched, from the table
// statistics of its own transaction, through am_recall as the service runs it
// (as near-bound.test.ts). The victim's lookup must fetch about what its own
// hits need, whatever the decoys (a lookup by the keyword alone fetches every decoy).
import { beforeAll, describe, expect, it } from "vitest";
import { recallParams } from "../../src/facts/recall/recall.js";
import { RECALL_CALL } from "../../src/facts/recall/recall-sql.js";
import { parseKeywords } from "../../src/facts/rules.js";
import type { Database } from "../../src/db/core/database.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller } from "./helpers.js";

const KEYWORD = "kubernetes";
const HITS = 20;
const DECOYS = 300;
// The keyword's trigrams as words apart: the trigram index proposes such a text for "%kubernetes%".
const PIECES = Array.from({ length: KEYWORD.length - 2 }, (_, i) => `q${KEYWORD.slice(i, i + 3)}q`).join(" ");

describe.each(BACKENDS)("recall's substring lookup over decoys on %s", (backend) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend, { statementTimeoutMs: 120_000 });
    const writer = await addCaller(tdb.db, "writer", { scopes: ["vic", "att", "shared"] });
    const insert = (scope: string, prefix: string, description: string, body: string, count: number) =>
      tdb.db.query(
        `insert into facts (scope, name, description, type, body, author_id)
         select $1::text, $2::text || i, $3::text || ' ' || i, 'reference', $4::text, $5::bigint from generate_series(1, $6::int) as i`,
        [scope, prefix, description, body, writer.agentId, count],
      );
    await insert("vic", "hit-", `Deploy ${KEYWORD} with helm`, "Pin the chart version.", HITS);
    // Decoys in a scope the victim cannot read, the pieces first in the body.
    await insert("att", "decoy-att-", "note", `${PIECES} ${"zx".repeat(1000)}`, DECOYS);
    // Decoys in a scope the victim reads, the pieces past the text a substring is sought in.
    // Past the part of the body recall searches (am_fact_search_body).
    const searched = (await tdb.db.query<{ n: number }>("select char_length(am_fact_search_body(repeat('x', 100000)))::int as n")).rows[0]!.n;
    await insert("shared", "decoy-deep-", "note", `${"zx".repeat(searched)} ${PIECES}`, DECOYS);
    await tdb.db.query("vacuum analyze facts");
  }, 240_000);

  it.each([
    ["one keyword", [KEYWORD]],
    ["ten pieces of it", [KEYWORD, "kubern", "bernet", "ernete", "ubernet", "kuber", "netes", "rnetes", "uberne", "ernetes"]],
  ])("%s: the victim's recall fetches its own hits, not the decoys", async (_what, keywords) => {
    const { total, facts } = await recallCounted(tdb.db, keywords, { all: false, scopes: ["vic", "shared"] });
    expect(total).toBe(HITS);
    // Each hit is fetched a few times (once per keyword's substring lookup,
    // the words lookup, its primary key, the answer); before 000038 every one
    // of the 600 decoys was fetched too, once per keyword.
    expect(facts, `${facts} rows of facts fetched`).toBeLessThanOrEqual(HITS * (keywords.length + 4));
  });

  it("a reader of every scope still finds every hit (the index without the scope)", async () => {
    const { total } = await recallCounted(tdb.db, [KEYWORD], { all: true, scopes: [] });
    expect(total).toBe(HITS);
  });

  it("the index leads with the scope and holds the bounded text", async () => {
    const def = (await tdb.db.query<{ def: string }>("select pg_get_indexdef('facts_exact_trgm'::regclass) as def")).rows[0]!.def;
    expect(def).toMatch(/USING gin \(scope, /);
    expect(def).toContain("am_fact_search_text(name, description, body)");
  });
});

async function recallCounted(db: Database, keywords: string[], readable: { all: boolean; scopes: string[] }): Promise<{ total: number; facts: number }> {
  const params = recallParams(parseKeywords(keywords), readable, {}, 50);
  return db.transaction(async (tx) => {
    const count = async () =>
      Number(
        (await tx.query<{ n: string }>("select (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text as n from pg_stat_xact_user_tables where relname = 'facts'")).rows[0]
          ?.n ?? 0,
      );
    const before = await count();
    const rows = (await tx.query<{ r: { total: number } }>(RECALL_CALL, params)).rows;
    return { total: rows[0]?.r.total ?? 0, facts: (await count()) - before };
  });
}
