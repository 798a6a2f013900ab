// Recall's near matches (typos) correct each word of a keyword against the
// vocabulary of the readable scopes (fact_words, am_near_words): words one edit
// away (a letter inserted, deleted, substituted, or two adjacent letters
// swapped), in any script, found by symmetric deletes. On both databases.
import { beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.js";
import { recallFacts, recallParams, type RecallInput } from "../../src/facts/recall/recall.js";
import { parseKeywords } from "../../src/facts/rules.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { type AnalyzedPlanNode, explainFunction, planNodes } from "../support/plans.js";
import { addCaller, fact, store } from "./helpers.js";

describe.each(BACKENDS)("near matches by edit distance on %s", (backend) => {
  let tdb: TestDatabase;
  let writer: Caller;
  let reader: Caller;

  const recall = (caller: Caller, input: RecallInput) => recallFacts(tdb.db, caller, input);
  const found = async (caller: Caller, keyword: string) =>
    (await recall(caller, { keywords: [keyword] })).hits.map((h) => [h.name, h.matches.map((m) => `${m.in}/${m.how}`).join(",")]);

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    writer = await addCaller(tdb.db, "writer", { scopes: ["team", "secret"] });
    reader = await addCaller(tdb.db, "reader", { scopes: ["shared"], readScopes: ["team"] });
    const team = { scope: "team" };
    await store(tdb.db, writer, fact("cache-ttl", { ...team, description: "The cache keeps images for ten minutes", body: "Set in config." }));
    await store(tdb.db, writer, fact("late-hooks", { ...team, description: "Webhooks arrive late", body: "We receive them up to a minute after the event." }));
    await store(tdb.db, writer, fact("migrate-first", { ...team, description: "Run the migration before the deploy", body: "Otherwise the API fails." }));
    await store(tdb.db, writer, fact("k8s-pods", { ...team, description: "Kubernetes pods restart nightly", body: "By the cron job." }));
    await store(tdb.db, writer, fact("flaky-suite", { ...team, description: "Integration tests are flaky on Mondays", body: "Retry once." }));
    await store(tdb.db, writer, fact("ru-vykladka", { ...team, description: "Миграция базы перед выкладкой", body: "Иначе API не стартует." }));
    await store(tdb.db, writer, fact("hidden-zebra", { scope: "secret", description: "The zebrafish protocol is confidential", body: "Only the secret scope knows." }));
  });

  it("finds a swapped pair of letters, which the trigram threshold missed", async () => {
    expect(await found(reader, "cahce")).toEqual([["cache-ttl", "summary/similar"]]);
    expect(await found(reader, "recieve")).toEqual([["late-hooks", "body/similar"]]);
  });

  it("finds a missing, an extra and a wrong letter", async () => {
    expect(await found(reader, "migraton")).toEqual([["migrate-first", "summary/similar"]]); // deleted
    expect(await found(reader, "migrattion")).toEqual([["migrate-first", "summary/similar"]]); // inserted
    expect(await found(reader, "kubernetis")).toEqual([["k8s-pods", "summary/similar"]]); // substituted
  });

  it("does not find two edits", async () => {
    expect(await found(reader, "kubrenetis")).toEqual([]);
  });

  it("corrects one word of a multi-word keyword and keeps the others", async () => {
    expect(await found(reader, "flaky integraton")).toEqual([["flaky-suite", "summary/similar"]]);
    // Every word must be there: a correct word the fact lacks finds nothing.
    expect(await found(reader, "flaky integraton deploy")).toEqual([]);
    // A short word (under four letters) is kept as written.
    expect(await found(reader, "on mondys")).toEqual([["flaky-suite", "summary/similar"]]);
    expect(await found(reader, "by mondys")).toEqual([]);
  });

  it("corrects words in other scripts", async () => {
    expect(await found(reader, "миграцыя")).toEqual([["ru-vykladka", "summary/similar"]]);
    expect(await found(reader, "МИГРАЦЫЯ")).toEqual([["ru-vykladka", "summary/similar"]]);
  });

  it("never reads or uses the words of a scope the caller cannot read", async () => {
    expect(await found(writer, "zebrafsh")).toEqual([["hidden-zebra", "summary/similar"]]);
    expect(await found(reader, "zebrafsh")).toEqual([]);
    // The reader's lookups of the vocabulary read no word at all here (the only
    // near word is in "secret"), counted in the plan.
    const params = recallParams(parseKeywords(["zebrafsh"]), { all: false, scopes: ["shared", "team"] }, {}, 10);
    const plan = await explainFunction<AnalyzedPlanNode>(tdb.db, "am_recall", params, { analyze: true });
    const scans = planNodes(plan).filter((n) => n["Relation Name"] === "fact_words");
    for (const n of scans) expect(n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0) + (n["Rows Removed by Index Recheck"] ?? 0)).toBe(0);
    // The generic plan holds the branch of a reader of every scope too (no scope
    // in its condition); it never runs for this reader. The scans that ran
    // looked up the reader's scopes only.
    const ran = scans.filter((n) => n["Actual Loops"] > 0);
    expect(ran.length).toBeGreaterThan(0);
    for (const n of ran) expect(JSON.stringify(n)).toContain("scope = ");
  });

  it("keeps the vocabulary current when a fact gets a new version", async () => {
    await store(tdb.db, writer, fact("deploy-window", { scope: "team", description: "Deploys happen on Tuesdays", body: "Ask first." }));
    expect(await found(reader, "zepelin")).toEqual([]);
    await store(tdb.db, writer, fact("deploy-window", { scope: "team", description: "Deploys happen on Tuesdays", body: "The zeppelin release froze deploys.", version: 1 }));
    expect(await found(reader, "zepelin")).toEqual([["deploy-window", "body/similar"]]);
    const words = await tdb.db.query<{ word: string }>("select word from fact_words where scope = 'team' and word in ('zeppelin', 'tuesdays') order by word");
    expect(words.rows.map((r) => r.word)).toEqual(["tuesdays", "zeppelin"]);
  });
});
