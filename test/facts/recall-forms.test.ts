// memory_recall through a real MCP client, on both backends: the two misses of
// the new-user trial (am_recall) and every example docs/recall.md gives.
// - A typo of another word form: "migraton" (singular, one letter missing) for
//   "migrations", "reviewrs" (plural) for "reviewer". Each was two edits from
//   the stored word; a word's plural and singular are now corrected too.
// - Chinese, Japanese and Korean keywords of several space-separated parts
//   ("タグ 5つ", "記事 タグ", "마이그레이션 배포") found nothing, or only as a
//   typo: the parts are not full-text words in those scripts. They now match
//   by their words when each part is a substring of the field.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";
import { addCaller, fact, store } from "./helpers.js";

interface Hit {
  name: string;
  matches: Array<{ keyword: string; in: string; how: string }>;
}

describe.each(BACKENDS)("recall of other word forms and CJK parts on %s", (backend) => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let reader: Client;

  async function recall(keywords: string[], scope: string) {
    const r = (await reader.callTool({ name: "memory_recall", arguments: { keywords, scope } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    return { text: textOf(r), hits: (r.structuredContent as { hits: Hit[] }).hits };
  }
  const names = async (keywords: string[], scope: string) => (await recall(keywords, scope)).hits.map((h) => h.name).sort();
  /** How each keyword matched the one hit expected. */
  const how = async (keywords: string[], scope: string, name: string) => {
    const { hits } = await recall(keywords, scope);
    expect(hits.map((h) => h.name)).toEqual([name]);
    return hits[0]!.matches.map((m) => `${m.keyword}: ${m.how} in ${m.in}`);
  };

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    service = await startInProcessService(tdb.db);
    const writer = await addCaller(tdb.db, "writer", { scopes: ["shared", "trial", "docs"] });
    const r = await addCaller(tdb.db, "reader", { scopes: ["shared"], readScopes: ["trial", "docs"] });
    reader = await connectClient(service, r.token, "reader");

    const trial = { scope: "trial" };
    await store(tdb.db, writer, fact("migrate-first", { ...trial, description: "Run database migrations before deploying", body: "The API does not boot on the old schema." }));
    await store(tdb.db, writer, fact("schema-review", { ...trial, description: "A schema migration needs a reviewer", body: "Someone other than its author reads it first." }));
    await store(tdb.db, writer, fact("qiita-tags", { ...trial, description: "Qiita の記事にはタグを5つまでしか付けられない", body: "投稿前にタグを選ぶ。" }));
    await store(tdb.db, writer, fact("ko-deploy-order", { ...trial, description: "배포를 하기 전에 마이그레이션을 실행한다", body: "이유: 스키마가 오래되면 API가 시작되지 않는다." }));
    await store(tdb.db, writer, fact("ja-body-only", { ...trial, description: "Release notes", body: "リリースノートは公開前にレビューを受ける。" }));

    // The examples of docs/recall.md, each word in the form the docs name.
    const docs = { scope: "docs" };
    await store(tdb.db, writer, fact("migration-lock", { ...docs, description: "A migration takes a lock on its table", body: "Run it at night." }));
    await store(tdb.db, writer, fact("webhook-receive", { ...docs, description: "Webhook handlers receive each event at least once", body: "Store the event id." }));
    await store(tdb.db, writer, fact("cache-order", { ...docs, description: "Invalidate the cache before the write", body: "Readers otherwise see old values." }));
    await store(tdb.db, writer, fact("kubernetes-limits", { ...docs, description: "Every Kubernetes deployment sets memory limits", body: "Pods without limits were evicted." }));
    await store(tdb.db, writer, fact("flaky-integration", { ...docs, description: "Integration tests are flaky on the shared runner", body: "Retry once before reporting." }));
    await store(tdb.db, writer, fact("pool-connection", { ...docs, description: "Close every database connection you open", body: "The pool is small." }));
  });

  it("finds a typo of another word form: a misspelled singular for a plural and back", async () => {
    // What the trial tried: found before, still found (as written or by words, as is "A schema migration").
    expect(await names(["migrations"], "trial")).toEqual(["migrate-first", "schema-review"]);
    expect(await names(["migrate"], "trial")).toEqual(["migrate-first", "schema-review"]);
    // Two edits from "migrations" (a letter missing, a swap; and the ending), one from its plural
    // (and one from "migration" in the other fact, found before too).
    for (const typo of ["migraton", "migratoin"]) {
      const { hits } = await recall([typo], "trial");
      expect(hits.map((h) => h.name).sort()).toEqual(["migrate-first", "schema-review"]);
      for (const h of hits) expect(h.matches).toEqual([{ keyword: typo, in: "summary", how: "similar" }]);
    }
    // Two edits from "reviewer", one from its singular "reviewr".
    expect(await how(["reviewrs"], "trial", "schema-review")).toEqual(["reviewrs: similar in summary"]);
    // Several words, each corrected in its own form.
    expect(await how(["databse migratons"], "trial", "migrate-first")).toEqual(["databse migratons: similar in summary"]);
    // Still nothing for a word two edits away from every form.
    expect(await names(["mgiratons"], "trial")).toEqual([]);
    const { text } = await recall(["migraton"], "trial");
    expect(text).toContain('"migraton" nearly (typo?) in name/description');
  });

  it("matches a Japanese keyword of several parts by its parts, in any order", async () => {
    expect(await how(["タグ 5つ"], "trial", "qiita-tags")).toEqual(["タグ 5つ: stemmed in summary"]);
    expect(await how(["記事 タグ"], "trial", "qiita-tags")).toEqual(["記事 タグ: stemmed in summary"]);
    expect(await how(["5つ 記事 Qiita"], "trial", "qiita-tags")).toEqual(["5つ 記事 Qiita: stemmed in summary"]);
    // A full-width space separates parts too.
    expect(await how(["タグ\u30005つ"], "trial", "qiita-tags")).toEqual(["タグ\u30005つ: stemmed in summary"]);
    // In the body.
    expect(await how(["レビュー リリースノート"], "trial", "ja-body-only")).toEqual(["レビュー リリースノート: stemmed in body"]);
    const { text } = await recall(["タグ 5つ"], "trial");
    expect(text).toContain('"タグ 5つ" by its words in name/description');
    // Every part must be there; a quoted keyword stays an exact phrase.
    expect(await names(["タグ 10個"], "trial")).toEqual([]);
    expect(await names(['"タグ 5つ"'], "trial")).toEqual([]);
    expect(await names(['"タグを5つ"'], "trial")).toEqual(["qiita-tags"]);
  });

  it("matches a Korean keyword of several correct words by its words, not as a typo", async () => {
    expect(await how(["마이그레이션 배포"], "trial", "ko-deploy-order")).toEqual(["마이그레이션 배포: stemmed in summary"]);
    expect(await how(["배포 마이그레이션"], "trial", "ko-deploy-order")).toEqual(["배포 마이그레이션: stemmed in summary"]);
    const { text } = await recall(["마이그레이션 배포"], "trial");
    expect(text).toContain("by its words");
    expect(text).not.toContain("typo");
    expect(await names(["마이그레이션 롤백"], "trial")).toEqual([]);
  });

  it("finds what docs/recall.md says it finds", async () => {
    // Near matches: one edit per word (the table of examples).
    expect(await how(["migartion"], "docs", "migration-lock")).toEqual(["migartion: similar in summary"]);
    expect(await how(["recieve"], "docs", "webhook-receive")).toEqual(["recieve: similar in summary"]);
    expect(await how(["cahce"], "docs", "cache-order")).toEqual(["cahce: similar in summary"]);
    expect(await how(["migraton"], "docs", "migration-lock")).toEqual(["migraton: similar in summary"]);
    expect(await how(["migrattion"], "docs", "migration-lock")).toEqual(["migrattion: similar in summary"]);
    expect(await how(["kubernetis"], "docs", "kubernetes-limits")).toEqual(["kubernetis: similar in summary"]);
    expect(await how(["flaky integraton"], "docs", "flaky-integration")).toEqual(["flaky integraton: similar in summary"]);
    expect(await names(["kubrenetis"], "docs")).toEqual([]);
    // "The usual ones are one edit."
    expect(await how(["kuberentes"], "docs", "kubernetes-limits")).toEqual(["kuberentes: similar in summary"]);
    expect(await how(["deploymnet"], "docs", "kubernetes-limits")).toEqual(["deploymnet: similar in summary"]);
    expect(await how(["conection"], "docs", "pool-connection")).toEqual(["conection: similar in summary"]);
    // Another form: two edits from the word written, one from its plural or singular.
    expect(await how(["migartions"], "docs", "migration-lock")).toEqual(["migartions: similar in summary"]);
    expect(await how(["conections"], "docs", "pool-connection")).toEqual(["conections: similar in summary"]);
  });
});
