// The duplicate lookup is advice, so it has a time bound (FACT_DUPLICATE_TIMEOUT_MS):
// among thousands of look-alike facts it grows with them, and past the bound a
// new fact is still stored and answered, only without the warning. Postgres
// only: the embedded database runs the lookup unbounded (a statement past its
// timeout there restarts the database's worker).
import { beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.js";
import { storeFact } from "../../src/facts/lifecycle/store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller, counts, fact, LIMITS } from "./helpers.js";

describe("duplicate lookup time bound on postgres", () => {
  let tdb: TestDatabase;
  let writer: Caller;

  beforeAll(async () => {
    // The load is one statement: on a busy machine it outlasts the default
    // statement timeout of the tests' databases.
    tdb = await createTestDatabase("postgres", { statementTimeoutMs: 300_000 });
    writer = await addCaller(tdb.db, "writer", { scopes: ["shared"] });
    // 5,000 facts that all look alike: the trigram index hands the lookup a
    // candidate for most of them, which takes far longer than 1 ms.
    await tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'shared', 'smoke-rule-' || i, 'Run the smoke tests before every change to the billing queue ' || (i % 50), 'project', 'body ' || i, $1
         from generate_series(1, 5000) as i`,
      [writer.agentId],
    );
    await tdb.db.query("vacuum analyze facts");
  });

  const alike = (name: string, description = "Run the smoke tests before every change to the billing queue") => fact(name, { description });

  it("within the bound, a new look-alike fact is stored with the warning", async () => {
    const r = await storeFact(tdb.db, writer, alike("smoke-rule-new-a"), { ...LIMITS, duplicateTimeoutMs: 10_000 });
    expect(r.outcome).toBe("created");
    expect(r.similar?.length).toBe(3);
  });

  it("past the bound, the fact is stored and answered without the warning", async () => {
    const before = await counts(tdb.db);
    const r = await storeFact(tdb.db, writer, alike("smoke-rule-new-b", "Run the smoke tests before every change to the billing queue today"), { ...LIMITS, duplicateTimeoutMs: 1 });
    expect(r.outcome).toBe("created");
    expect(r.similar).toBeUndefined();
    expect((await counts(tdb.db)).facts).toBe(before.facts + 1);
    const stored = await tdb.db.query<{ description: string }>("select description from facts where name = 'smoke-rule-new-b'");
    expect(stored.rows).toHaveLength(1);
  });
});
