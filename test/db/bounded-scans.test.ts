// The bounded scans behind memory_list and ledger_list (am_fact_page,
// am_ledger_page) read at most p_max rows whatever the
// data: each statement's WHERE is one index's range and every filter is
// computed, so no plan reads rows it does not count. An independent review
// found the first version reading 105,001 facts for a page bounded at 5,000:
// with "status = …" Postgres served change_seq order from the change_seq index
// and tested the status as a filter, and rows a filter removes are read but
// never counted. Here, on skewed data where that plan looks cheapest, the plan
// of every branch (auto_explain of the function's own statement, Postgres) is
// an index scan of the intended index that removes nothing by filter and reads
// at most p_max rows.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { type AnalyzedPlanNode, planNodes } from "../support/plans.js";

const MAX = 50;

describe("bounded scans read at most their bound, through the intended index (postgres)", () => {
  let tdb: TestDatabase;
  let client: pg.Client;
  const plans: AnalyzedPlanNode[] = [];

  /** Runs a call with auto_explain on, and returns the scans of `table` in the function's nested statement. */
  async function scansOf(call: string, table: string): Promise<AnalyzedPlanNode[]> {
    plans.length = 0;
    await client.query(call);
    return plans.flatMap((p) => planNodes(p)).filter((n) => n["Relation Name"] === table && n["Node Type"].includes("Scan"));
  }

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const author = await createAgent(tdb.db, { name: "author", kind: "agent", writeScopes: ["shared"] });
    const reviewer = await createAgent(tdb.db, { name: "reviewer", kind: "agent", writeScopes: ["shared"] });
    // Skewed as a real store: 3,000 old confirmed facts, then 1,000 newer drafts.
    await tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'shared', 'old-' || g, 'Old ' || g, 'project', 'Why and how.', $1::bigint from generate_series(1, 3000) g`,
      [author.id],
    );
    await tdb.db.query(
      `update facts set status = 'confirmed', status_by_id = $1::bigint, status_at = now() - interval '400 days', status_reason = 'checked',
              change_seq = nextval('fact_change_seq')`,
      [reviewer.id],
    );
    await tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'shared', 'new-' || g, 'New ' || g, 'project', 'Why and how.', $1::bigint from generate_series(1, 1000) g`,
      [author.id],
    );
    // A ledger of one busy action and one quiet actor.
    await tdb.db.query(
      `insert into ledger_events (seq, kind, action, target, actor_id, actor, at, claim_expires_at, prev_hash, hash)
       select g, 'claimed', case when g % 100 = 0 then 'rare_action' else 'deploy' end, 't-' || (g % 3), $1::bigint,
              case when g % 100 = 0 then 'quiet' else 'busy' end, date_trunc('milliseconds', now()) - (3000 - g) * interval '1 second',
              now() + interval '1 hour', repeat('0', 64), repeat('0', 64)
         from generate_series(1, 3000) g`,
      [author.id],
    );
    await tdb.db.exec("vacuum analyze facts");
    await tdb.db.exec("vacuum analyze ledger_events");
    client = new pg.Client({ connectionString: tdb.url });
    await client.connect();
    client.on("notice", (n) => {
      const text = n.message ?? "";
      const json = text.slice(text.indexOf("{"));
      if (!text.includes('"Plan"')) return;
      const parsed = JSON.parse(json.replace(/^[^{]*/, "")) as { "Query Text": string; Plan: AnalyzedPlanNode };
      // Only the statements inside the functions (the callers' own plan is a Function Scan).
      if (!parsed["Query Text"].includes("am_fact_page(") && !parsed["Query Text"].includes("am_ledger_page(")) plans.push(parsed.Plan);
    });
    await client.query(
      "load 'auto_explain'; set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; " +
        "set auto_explain.log_analyze = on; set auto_explain.log_format = json; set auto_explain.log_level = notice; set client_min_messages = notice",
    );
  }, 120_000);
  afterAll(async () => {
    await client?.end();
  });

  const facts = (order: string, status: string | null, days: string | null = null) =>
    `select * from am_fact_page('${order}', ${status ? `'${status}'` : "null"}, null, ${days ?? "null"}, null, null, ${MAX}, 21, true, '{}', 'reference', null, null, null, null, '{}')`;

  it.each([
    ["the oldest drafts (the console's review queue)", facts("oldest", "draft"), "facts_status_change_seq"],
    ["the newest confirmed facts, behind 1,000 newer drafts", facts("newest", "confirmed"), "facts_status_change_seq"],
    ["the newest facts of any status", facts("newest", null), "facts_change_seq_unique"],
    ["stale facts", facts("stale", null, "now() - interval '180 days'"), "facts_confirmed_status_at"],
  ])("am_fact_page: %s", async (_label, call, index) => {
    const scans = await scansOf(call, "facts");
    expect(scans.length).toBeGreaterThan(0);
    for (const scan of scans) {
      expect(scan["Index Name"], JSON.stringify(scan)).toBe(index);
      expect(scan["Rows Removed by Filter"] ?? 0).toBe(0);
      expect(scan["Actual Rows"] * scan["Actual Loops"]).toBeLessThanOrEqual(MAX + 1);
    }
  });

  const ledger = (action: string | null, target: string | null, actor: string | null) =>
    `select * from am_ledger_page(${[action, target, actor].map((v) => (v ? `'${v}'` : "null")).join(", ")}, null, 'voided', null, ${MAX}, 21)`;

  it.each([
    ["a key", ledger("rare_action", "t-1", null), "ledger_events_key_seq_asc"],
    ["an actor", ledger(null, null, "quiet"), "ledger_events_actor_seq_asc"],
    ["an action", ledger("rare_action", null, null), "ledger_events_action_seq"],
    ["the whole ledger", ledger(null, null, null), "ledger_events_pkey"],
  ])("am_ledger_page: %s", async (_label, call, index) => {
    const scans = await scansOf(call, "ledger_events");
    expect(scans.length).toBeGreaterThan(0);
    for (const scan of scans) {
      expect(scan["Index Name"], JSON.stringify(scan)).toBe(index);
      expect(scan["Rows Removed by Filter"] ?? 0).toBe(0);
      expect(scan["Actual Rows"] * scan["Actual Loops"]).toBeLessThanOrEqual(MAX + 1);
    }
  });
});
