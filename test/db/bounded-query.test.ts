// Database.queryBounded: one statement under its own statement timeout, in one
// round trip, without changing the timeout of anything else (the duplicate
// warning runs on it: advice that must not slow a store down).
import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";

describe("queryBounded on postgres", () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres", { poolMax: 4 });
  });

  it("runs a new connection's first statement under the configured timeout, every later one under the bound", async () => {
    const setting = () => tdb.db.queryBounded<{ t: string; n: number }>(250, "select current_setting('statement_timeout') as t, $1::int as n", [7]);
    const first = await setting();
    expect(first.rows[0]!.n).toBe(7);
    expect(first.rows[0]!.t).not.toBe("250ms");
    expect((await setting()).rows).toEqual([{ t: "250ms", n: 7 }]);
  });

  it("cancels a statement past the bound, and the connection stays usable", async () => {
    await expect(tdb.db.queryBounded(50, "select pg_sleep(2)")).rejects.toMatchObject({ code: "57014" });
    expect((await tdb.db.queryBounded<{ t: string }>(50, "select current_setting('statement_timeout') as t")).rows).toEqual([{ t: "50ms" }]);
  });

  it("leaves every other statement under the configured timeout", async () => {
    await tdb.db.queryBounded(50, "select 1");
    const plain = await tdb.db.query<{ t: string }>("select current_setting('statement_timeout') as t");
    expect(plain.rows[0]!.t).not.toBe("50ms");
    // A statement longer than the bound is fine on the main pool.
    await expect(tdb.db.query("select pg_sleep(0.1)")).resolves.toBeDefined();
  });
});

describe("queryBounded on pglite", () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase("pglite");
  });

  // A statement past its timeout restarts the embedded database's worker, so
  // the bound is not applied there (the embedded store is small).
  it("runs the statement without the bound", async () => {
    expect((await tdb.db.queryBounded<{ n: number }>(1, "select $1::int as n from pg_sleep(0.05)", [3])).rows).toEqual([{ n: 3 }]);
  });
});
