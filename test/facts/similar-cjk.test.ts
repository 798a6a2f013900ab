// The duplicate warning on Japanese, Korean and Chinese facts (sql/000044): labelled
// pairs of similar-pairs.ts through the lookup memory_store runs, on both
// databases, with the errors that remain named; how a text is read; and the
// migration, which writes again only the facts whose reading it changes.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMigrations, migrate } from "../../src/db/migrate.js";
import { openPostgres } from "../../src/db/postgres.js";
import { createAgent } from "../../src/auth/store.js";
import { BACKENDS, createEmptyPostgresDatabase, createTestDatabase, TEST_TIMEOUTS, type TestDatabase } from "../support/databases.js";
import { storePairs } from "./helpers.js";
import { CJK_KNOWN_ERRORS, DIFFERENT_FACTS_CJK, DIFFERENT_FACTS_ZH, SAME_FACT_CJK, SAME_FACT_ZH } from "./similar-pairs.js";

describe.each(BACKENDS)("the duplicate warning in Japanese, Korean and Chinese, on %s", (backend) => {
  let tdb: TestDatabase;
  const pairs = [
    ...[...SAME_FACT_CJK, ...SAME_FACT_ZH].map((p) => ({ p, same: true })),
    ...[...DIFFERENT_FACTS_CJK, ...DIFFERENT_FACTS_ZH].map((p) => ({ p, same: false })),
  ];
  let similarTo: (i: number) => Promise<unknown[]>;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    ({ similarTo } = await storePairs(tdb.db, pairs.map(({ p }) => p)));
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  const reading = async (text: string) => (await tdb.db.query<{ t: string }>("select am_duplicate_text($1) as t", [text])).rows[0]!.t;

  it("lists the rewordings and leaves out the different facts, but for the errors named in similar-pairs.ts", async () => {
    const missed: string[] = [];
    const listedWrongly: string[] = [];
    for (const [i, { p, same }] of pairs.entries()) {
      const [, [name, description]] = p;
      const listed = (await similarTo(i)).length > 0;
      if (same && !listed) missed.push(`${name}: ${description}`);
      if (!same && listed) listedWrongly.push(`${name}: ${description}`);
    }
    expect({ missed, listedWrongly }).toEqual(CJK_KNOWN_ERRORS);
  });

  it("reads kanji as overlapping pairs, katakana whole, leaves hiragana out, and Korean, English and mixed words as before", async () => {
    expect(await reading("deploy-needs-migrations: 本番デプロイの前に必ずマイグレーションを流す")).toBe("deploy needs migrations 本番 デプロイ 前 必 マイグレーション 流");
    expect(await reading("日曜日の夜、数据库迁移")).toBe("日曜 曜日 夜 数据 据库 库迁 迁移");
    expect(await reading("公開APIはキーごとに毎分100リクエストまで")).toBe("公開 api キー 毎分 100 リクエスト");
    // Half-width katakana and the iteration mark are letters of these scripts too.
    expect(await reading("ﾃﾞﾌﾟﾛｲは時々")).toBe("ﾃﾞﾌﾟﾛｲ 時々");
    // Hiragana only: nothing left, as for English function words (the lookup then finds copies only).
    expect(await reading("これはそれです")).toBe("");
    expect(await reading("Qiita 태그는 5개까지만 붙일 수 있다")).toBe("qiita 태그는 5개까지만 붙일 수 있다");
    expect(await reading("The queue is drained before a restart of the workers")).toBe("queue drained restart workers");
    // In a text that holds Japanese, English words still lose their function words.
    expect(await reading("the deploy of 本番")).toBe("deploy 本番");
    // ー goes with the hiragana it lengthens; 〆, 〇 and kanji beyond the BMP are kanji.
    expect(await reading("らーめんを食べる")).toBe("食");
    expect(await reading("〆切は二〇二四年、𠮷野家")).toBe("〆切 二〇 〇二 二四 四年 𠮷野 野家");
  });
});

describe("migration 000044 over facts stored before it (postgres)", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  /** A database migrated to just before 000044, with an agent; `finish` applies the rest. */
  async function beforeMigration() {
    const empty = await createEmptyPostgresDatabase();
    cleanups.push(empty.drop);
    const db = openPostgres({ ...TEST_TIMEOUTS, connectionString: empty.url, poolMax: 2, connectTimeoutMs: 5000 });
    cleanups.push(() => db.close());
    const all = await loadMigrations();
    const at = all.findIndex((m) => m.name.includes("duplicate_japanese_chinese"));
    expect(at).toBeGreaterThan(0);
    await migrate(db, all.slice(0, at));
    const writer = await createAgent(db, { name: "writer", kind: "agent", writeScopes: ["shared"] });
    return { db, url: empty.url, writer, finish: () => migrate(db, all) };
  }

  it("gives Japanese facts the new reading, and leaves every other row as it was", async () => {
    const { db, writer, finish } = await beforeMigration();
    await db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       values ('shared', 'deploy-needs-migrations', '本番デプロイの前に必ずマイグレーションを流す', 'project', 'b', $1::bigint),
              ('shared', 'qiita-tag-limit', 'Qiita 태그는 5개까지만 붙일 수 있다', 'project', 'b', $1::bigint),
              ('shared', 'drain-queue', 'Drain the queue before restarting the workers', 'project', 'b', $1::bigint)`,
      [writer.id],
    );
    const rows = async () =>
      Object.fromEntries(
        (await db.query<{ name: string; ctid: string; duplicate_text: string; version: number; updated_at: Date }>("select name, ctid::text, duplicate_text, version, updated_at from facts")).rows.map(
          (r) => [r.name, r],
        ),
      );
    const before = await rows();
    expect(before["deploy-needs-migrations"]!.duplicate_text).toBe("deploy needs migrations 本番デプロイの前に必ずマイグレーションを流す");
    await finish();
    const after = await rows();
    expect(after["deploy-needs-migrations"]).toMatchObject({
      duplicate_text: "deploy needs migrations 本番 デプロイ 前 必 マイグレーション 流",
      version: 1,
      updated_at: before["deploy-needs-migrations"]!.updated_at,
    });
    // Not written again: the same row version.
    expect(after["qiita-tag-limit"]).toEqual(before["qiita-tag-limit"]);
    expect(after["drain-queue"]).toEqual(before["drain-queue"]);
    expect(await stale(db)).toBe(0);
  });

  // A service still running while the migration runs writes with the function
  // it sees, the old one until the migration commits: the migration keeps
  // writes out until then (found by review).
  it("a fact written while it runs is read the new way too", async () => {
    const { db, url, writer, finish } = await beforeMigration();
    const INSERT = `insert into facts (scope, name, description, type, body, author_id) values ('shared', $1, '本番デプロイの前に必ずマイグレーションを流す', 'project', 'b', $2::bigint)`;
    await db.query(INSERT, ["before-migration", writer.id]);
    const open = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      cleanups.push(() => client.end());
      return client;
    };
    // Holds the Japanese fact's row, so that the migration's update waits for it.
    const holder = await open();
    await holder.query("begin");
    await holder.query("select 1 from facts where name = 'before-migration' for update");
    const migrating = finish();
    const waiting = async (n: number) => {
      for (let i = 0; i < 500; i++) {
        const r = await holder.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
        if (r.rows[0]!.n >= n) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`fewer than ${n} connections waited`);
    };
    await waiting(1);
    // A write meanwhile, as a running service would make it.
    const writerClient = await open();
    let written = false;
    const writing = writerClient.query(INSERT, ["during-migration", writer.id]).then(() => (written = true));
    // Either it waits for the migration, or (without the migration's lock) it is through at once.
    for (let i = 0; i < 500 && !written; i++) {
      const r = await holder.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
      if (r.rows[0]!.n >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await holder.query("commit");
    await migrating;
    await writing;
    expect(await stale(db)).toBe(0);
  });
});

/** Facts whose stored reading is not what am_duplicate_text gives now. */
async function stale(db: { query: TestDatabase["db"]["query"] }): Promise<number> {
  const r = await db.query<{ n: number }>("select count(*)::int as n from facts where duplicate_text is distinct from am_duplicate_text(name || ' ' || description)");
  return r.rows[0]!.n;
}
