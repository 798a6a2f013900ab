// Facts' statements on the request path are named prepared statements on
// Postgres (src/facts/prepared.ts): parsed once per connection instead of on
// every call. The answers are the same as the plain statements', call after
// call, and a second store of the same name still meets the unique key.
import { beforeAll, describe, expect, it } from "vitest";
import { listFacts } from "../../src/facts/lifecycle/list.js";
import { getFact } from "../../src/facts/lifecycle/get.js";
import { recallFacts } from "../../src/facts/recall/recall.js";
import { promoteFact } from "../../src/facts/review/promote.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller, domainError, fact, store } from "./helpers.js";

describe("facts' statements prepared on postgres", () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    // One connection: what one call prepared is visible to the next query.
    tdb = await createTestDatabase("postgres", { poolMax: 1 });
  });

  it("prepares store, recall, get, list and promote once and answers alike every time", async () => {
    const writer = await addCaller(tdb.db, "prepared-writer", { scopes: ["shared"] });
    const reviewer = await addCaller(tdb.db, "prepared-reviewer", { scopes: ["shared"] });
    for (let i = 0; i < 8; i++) {
      const r = await store(tdb.db, writer, fact(`prepared-rule-${i}`, { description: `Run migration ${i} before the deploy` }));
      expect(r.outcome).toBe("created");
    }
    // Past Postgres's five custom plans, so a generic plan (where one is kept) answers too.
    const recalls = [];
    for (let i = 0; i < 8; i++) recalls.push(await recallFacts(tdb.db, writer, { keywords: ["migrations"] }));
    for (const r of recalls) expect(r).toEqual(recalls[0]);
    expect(recalls[0]!.total).toBe(8);
    const gets = [];
    for (let i = 0; i < 7; i++) gets.push(await getFact(tdb.db, writer, { name: "prepared-rule-3" }));
    for (const g of gets) expect(g).toEqual(gets[0]);
    expect(gets[0]!.description).toBe("Run migration 3 before the deploy");
    const lists = [];
    for (let i = 0; i < 7; i++) lists.push(await listFacts(tdb.db, writer, { status: "draft", limit: 3 }));
    for (const l of lists) expect(l).toEqual(lists[0]);
    expect(lists[0]!.facts).toHaveLength(3);
    for (let i = 0; i < 6; i++) {
      const p = await promoteFact(tdb.db, reviewer, { name: `prepared-rule-${i}`, to: "confirmed", reason: "checked the runbook" });
      expect(p.to).toBe("confirmed");
    }
    const again = await domainError(store(tdb.db, writer, fact("prepared-rule-1")));
    expect(again.message).toContain('A fact named "prepared-rule-1" already exists');

    const names = (await tdb.db.query<{ name: string }>("select name from pg_prepared_statements where name like 'am_facts_%' order by name")).rows.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(["am_facts_create", "am_facts_current_version", "am_facts_get", "am_facts_list_page", "am_facts_lock_for_promotion", "am_facts_promote", "am_facts_recall"]));
  });
});
