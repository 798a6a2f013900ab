// memory_recall's search on both backends: any script, case-insensitive,
// literal keywords, words (stems, any order, quoted phrases), near matches
// for typos, ranking, bounded answers, and scope filtering.
import { beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.js";
import { DomainError } from "../../src/errors.js";
import { recallFacts, type RecallInput } from "../../src/facts/recall/recall.js";
import { promoteFact } from "../../src/facts/review/promote.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller, fact, store } from "./helpers.js";

describe.each(BACKENDS)("recall on %s", (backend) => {
  let tdb: TestDatabase;
  let writer: Caller;
  let reviewer: Caller;
  let outsider: Caller;

  const recall = (caller: Caller, input: RecallInput) => recallFacts(tdb.db, caller, input);
  const names = async (caller: Caller, input: RecallInput) => (await recall(caller, input)).hits.map((h) => h.name);
  const refusal = async (caller: Caller, input: RecallInput) => {
    try {
      await recall(caller, input);
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
    throw new Error("recall was expected to refuse");
  };

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    writer = await addCaller(tdb.db, "writer", { scopes: ["shared", "langs", "rank", "blog", "bulk", "words", "fuse"] });
    reviewer = await addCaller(tdb.db, "reviewer", { scopes: ["shared", "langs", "rank", "blog", "bulk", "words", "fuse"] });
    outsider = await addCaller(tdb.db, "outsider", { scopes: ["shared"], readScopes: ["langs", "rank", "bulk", "words", "fuse"] });

    const langs = { scope: "langs" };
    await store(tdb.db, writer, fact("ja-migrations", { ...langs, description: "本番デプロイの前にマイグレーションを実行する", body: "理由: 古いスキーマのままだとAPIが起動しない。手順: 先に migrate を実行する。" }));
    await store(tdb.db, writer, fact("ko-migrations", { ...langs, description: "배포 전에 데이터베이스 마이그레이션을 실행한다", body: "이유: 스키마가 오래되면 API가 시작되지 않는다." }));
    await store(tdb.db, writer, fact("zh-migrations", { ...langs, description: "部署前必须运行数据库迁移", body: "原因：旧的表结构会导致服务无法启动。" }));
    await store(tdb.db, writer, fact("de-umlauts", { ...langs, description: "Ärger mit Umlauten in Dateinamen", body: "Dateinamen immer NFC-normalisieren." }));
    await store(tdb.db, writer, fact("literal-percent", { ...langs, description: "Rollouts stop at 100% of the canary", body: "Body." }));
    await store(tdb.db, writer, fact("near-percent", { ...langs, description: "Batches hold 1000 items", body: "Body." }));
    await store(tdb.db, writer, fact("literal-underscore", { ...langs, description: "Config keys use snake_case", body: "Body." }));
    await store(tdb.db, writer, fact("near-underscore", { ...langs, description: "Python names: snakeXcase is wrong", body: "Body." }));
  });

  it("finds Japanese, Korean and Chinese facts by keywords inside words (no word boundaries)", async () => {
    expect(await names(outsider, { keywords: ["マイグレーション"] })).toEqual(["ja-migrations"]);
    expect(await names(outsider, { keywords: ["デプロイ"] })).toEqual(["ja-migrations"]);
    expect(await names(outsider, { keywords: ["本番"] })).toEqual(["ja-migrations"]); // two characters
    expect(await names(outsider, { keywords: ["スキーマ"] })).toEqual(["ja-migrations"]); // body only
    expect(await names(outsider, { keywords: ["마이그레이션"] })).toEqual(["ko-migrations"]);
    expect(await names(outsider, { keywords: ["배포"] })).toEqual(["ko-migrations"]);
    expect(await names(outsider, { keywords: ["迁移"] })).toEqual(["zh-migrations"]);
    expect(await names(outsider, { keywords: ["表结构"] })).toEqual(["zh-migrations"]);
  });

  it("matches case-insensitively, beyond ASCII too", async () => {
    expect(await names(outsider, { keywords: ["ärger"] })).toEqual(["de-umlauts"]);
    expect(await names(outsider, { keywords: ["NFC-NORMALISIEREN"] })).toEqual(["de-umlauts"]);
    expect(await names(outsider, { keywords: ["JA-MIGRATIONS"] })).toEqual(["ja-migrations"]);
  });

  it("matches any keyword and treats % and _ literally", async () => {
    expect(await names(outsider, { keywords: ["100%"] })).toEqual(["literal-percent"]);
    expect(await names(outsider, { keywords: ["snake_case"] })).toEqual(["literal-underscore"]);
    expect((await names(outsider, { keywords: ["迁移", "배포", "nothing-like-this"] })).sort()).toEqual(["ko-migrations", "zh-migrations"]);
  });

  it("ranks name/description hits first, then confirmed, draft, deprecated, then the most recent", async () => {
    const rank = { scope: "rank" };
    await store(tdb.db, writer, fact("old-confirmed-head", { ...rank, description: "quokka rule, older" }));
    await store(tdb.db, writer, fact("deprecated-head", { ...rank, description: "quokka rule withdrawn" }));
    await store(tdb.db, writer, fact("quokka-draft-by-name", { ...rank, description: "draft named after the keyword" }));
    await store(tdb.db, writer, fact("new-confirmed-head", { ...rank, description: "quokka rule, newer" }));
    await store(tdb.db, writer, fact("body-draft", { ...rank, body: "mentions the quokka only in the body" }));
    await store(tdb.db, writer, fact("body-confirmed", { ...rank, body: "also mentions the QUOKKA only in the body" }));
    for (const name of ["old-confirmed-head", "new-confirmed-head", "body-confirmed", "deprecated-head"]) {
      await promoteFact(tdb.db, reviewer, { name, to: "confirmed", reason: "checked" });
    }
    await promoteFact(tdb.db, reviewer, { name: "deprecated-head", to: "deprecated", reason: "the quokka rule was replaced by the wombat rule" });

    const r = await recall(outsider, { keywords: ["quokka"] });
    expect(r.hits.map((h) => [h.name, h.status, h.matchedIn])).toEqual([
      ["new-confirmed-head", "confirmed", "summary"],
      ["old-confirmed-head", "confirmed", "summary"],
      ["quokka-draft-by-name", "draft", "summary"],
      ["deprecated-head", "deprecated", "summary"],
      ["body-confirmed", "confirmed", "body"],
      ["body-draft", "draft", "body"],
    ]);
    expect(r).toMatchObject({ total: 6, truncated: false });
    const deprecated = r.hits.find((h) => h.name === "deprecated-head")!;
    expect(deprecated).toMatchObject({ statusBy: "reviewer", statusReason: "the quokka rule was replaced by the wombat rule" });
    expect(r.hits.find((h) => h.name === "new-confirmed-head")).toMatchObject({ statusBy: "reviewer", author: "writer", version: 1 });

    expect(await names(outsider, { keywords: ["quokka"], status: "draft" })).toEqual(["quokka-draft-by-name", "body-draft"]);
  });

  it("says how many matched and whether the list was cut; shortens long bodies", async () => {
    for (let i = 0; i < 15; i++) {
      await store(tdb.db, writer, fact(`bulk-${i}`, { scope: "bulk", type: i % 3 === 0 ? "reference" : "project", body: `platypus ${"x".repeat(i === 0 ? 3000 : 10)}` }));
    }
    const r = await recall(outsider, { keywords: ["platypus"], limit: 5 });
    expect(r.hits).toHaveLength(5);
    expect(r).toMatchObject({ total: 15, truncated: true });
    const all = await recall(outsider, { keywords: ["platypus"], limit: 50 });
    expect(all).toMatchObject({ total: 15, truncated: false });
    const long = all.hits.find((h) => h.name === "bulk-0")!;
    expect(long).toMatchObject({ bodyTruncated: true, bodyChars: 3009 });
    expect(long.body).toHaveLength(1000);
    expect(all.hits.find((h) => h.name === "bulk-1")).toMatchObject({ bodyTruncated: false, bodyChars: 19 });
    expect((await recall(outsider, { keywords: ["platypus"], type: "reference", limit: 50 })).total).toBe(5);
    expect((await recall(outsider, { keywords: ["platypus"], scope: "langs" })).total).toBe(0);
  });

  it("returns only facts in scopes the caller may read, and refuses an unreadable scope filter", async () => {
    await store(tdb.db, writer, fact("blog-only-echidna", { scope: "blog", description: "echidna" }));
    await store(tdb.db, writer, fact("shared-echidna", { description: "echidna" }));
    expect((await names(writer, { keywords: ["echidna"] })).sort()).toEqual(["blog-only-echidna", "shared-echidna"]);
    expect(await recall(outsider, { keywords: ["echidna"] })).toMatchObject({ total: 1, hits: [{ name: "shared-echidna" }] });
    const e = await refusal(outsider, { keywords: ["echidna"], scope: "blog" });
    expect(e.code).toBe("forbidden");
    expect(e.message).toContain('may not read scope "blog"');
    // The same answer whether or not the scope holds anything.
    expect((await refusal(outsider, { keywords: ["echidna"], scope: "nothing-here" })).message).toBe(e.message.replaceAll('"blog"', '"nothing-here"'));
  });

  describe("words, phrases and near matches (issue 17)", () => {
    const words = { scope: "words" };
    beforeAll(async () => {
      await store(tdb.db, writer, fact("migrate-before-deploy", { ...words, description: "Run the database migration before every deploy", body: "Otherwise the new code starts against the old schema." }));
      await store(tdb.db, writer, fact("credit-note-numbering", { ...words, description: "Each credit note gets its own number series", body: "Accounting requires gapless numbering per series." }));
      await store(tdb.db, writer, fact("ci-retries", { ...words, description: "Retry the CI job once when the tests are flaky", body: "Report the flaky test in the tracker before retrying." }));
      await store(tdb.db, writer, fact("db-pool-size", { ...words, description: "Keep the Postgres pool at 10 connections per worker", body: "More connections slow everything down; pooling happens in pgbouncer." }));
      await store(tdb.db, writer, fact("unrelated-cache", { ...words, description: "Cache keys carry the schema version", body: "Flush on every schema change." }));
    });
    const within = (keywords: string[]) => names(outsider, { keywords, scope: "words" });

    it("finds a fact by another inflection of its words", async () => {
      expect(await within(["migrations"])).toEqual(["migrate-before-deploy"]);
      expect(await within(["migrating"])).toEqual(["migrate-before-deploy"]);
      expect(await within(["deployment"])).toEqual(["migrate-before-deploy"]);
      expect(await within(["credit notes"])).toEqual(["credit-note-numbering"]);
    });

    it("finds a multi-word keyword whose words occur in another order", async () => {
      expect(await within(["flaky test"])).toEqual(["ci-retries"]);
      expect(await within(["connection pooling"])).toEqual(["db-pool-size"]);
    });

    it("matches a quoted keyword only as that exact phrase", async () => {
      expect(await within(['"flaky test"'])).toEqual(["ci-retries"]); // the body says "the flaky test"
      expect(await within(['"tests flaky"'])).toEqual([]);
      expect(await within(['"database migration"'])).toEqual(["migrate-before-deploy"]);
      expect(await within(['"migration database"'])).toEqual([]);
    });

    it("finds a typo as a near match, and says so", async () => {
      const r = await recall(outsider, { keywords: ["migartion"], scope: "words" });
      expect(r.hits.map((h) => h.name)).toEqual(["migrate-before-deploy"]);
      expect(r.hits[0]!.matches).toEqual([{ keyword: "migartion", in: "summary", how: "similar" }]);
      // A keyword that matches as written brings no look-alikes.
      expect(await within(["schema"])).toEqual(["unrelated-cache", "migrate-before-deploy"]);
    });

    it("says per hit which keyword matched where, and how", async () => {
      const r = await recall(outsider, { keywords: ["deployment", "schema", "nothing-like-this"], scope: "words" });
      expect(r.hits.map((h) => [h.name, h.matchedIn, h.matches])).toEqual([
        [
          "migrate-before-deploy",
          "summary",
          [
            { keyword: "deployment", in: "summary", how: "stemmed" },
            { keyword: "schema", in: "body", how: "exact" },
          ],
        ],
        ["unrelated-cache", "summary", [{ keyword: "schema", in: "summary", how: "exact" }]],
      ]);
    });

    it("ranks a fact matching every keyword above newer facts that each match one", async () => {
      const fuse = { scope: "fuse" };
      await store(tdb.db, writer, fact("rollback-checklist", { ...fuse, description: "Checklist for a rollback", body: "Restore the backup, then replay the queue." }));
      for (const [i, word] of ["rollback", "backup", "queue", "rollback", "backup", "queue"].entries()) {
        await store(tdb.db, writer, fact(`partial-${i}`, { ...fuse, description: `Notes on the ${word}`, body: "Nothing more." }));
        await promoteFact(tdb.db, reviewer, { name: `partial-${i}`, scope: "fuse", to: "confirmed", reason: "checked" });
      }
      const r = await recall(outsider, { keywords: ["rollback", "backup", "queue"], scope: "fuse" });
      expect(r.hits[0]!.name).toBe("rollback-checklist");
      expect(r.hits[0]!.matches.map((m) => m.keyword)).toEqual(["rollback", "backup", "queue"]);
      expect(r.total).toBe(7);
    });

    it("keeps counting only what the caller may read", async () => {
      await store(tdb.db, writer, fact("blog-migration-secret", { scope: "blog", description: "Migrations of the blog database" }));
      expect(await names(outsider, { keywords: ["database migrations"] })).toEqual(["migrate-before-deploy"]);
      expect(await recall(outsider, { keywords: ["databse"] })).toMatchObject({ total: 1, hits: [{ name: "migrate-before-deploy" }] });
      expect((await names(writer, { keywords: ["database migrations"] })).sort()).toEqual(["blog-migration-secret", "migrate-before-deploy"]);
      expect((await names(writer, { keywords: ["databse"] })).sort()).toEqual(["blog-migration-secret", "migrate-before-deploy"]);
    });
  });

  it("refuses multi-line, empty and too many keywords with a clear message", async () => {
    expect((await refusal(outsider, { keywords: ["deploy\nrollback"] })).message).toContain("keywords[0] contains a line break");
    expect((await refusal(outsider, { keywords: ["ok", "tab\there"] })).message).toContain("keywords[1]");
    expect((await refusal(outsider, { keywords: ["  "] })).message).toContain("keywords[0] is empty");
    expect((await refusal(outsider, { keywords: Array.from({ length: 11 }, (_, i) => `k${i}`) })).message).toContain("1-10 keywords");
    expect((await refusal(outsider, { keywords: ["x"], limit: 51 })).message).toContain("limit must be");
  });
});
