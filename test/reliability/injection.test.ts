// SQL injection attempts (and other texts that break naive quoting: backslashes,
// dollar quotes, LIKE wildcards, look-alike quotes) in every string field are
// data: stored verbatim, read back byte-identical through the tools and in the
// database, found by search, and the schema, the agents and the ledger chain
// are untouched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onlyJson, runCli } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { callToolOk, type Replica, startReplica, stopAllReplicas } from "./support.js";

const INJECTIONS = [
  "'; drop table facts; --",
  "' or '1'='1",
  '" or 1=1 --',
  "'); delete from ledger_events; --",
  "1; update agents set write_scopes = '{*}'",
  "' union select token_hash, null from agent_tokens --",
  "admin'--",
  "$1",
  "$$; select pg_sleep(10); $$",
  "$tag$ drop table agents $tag$",
  "E'\\x27' || chr(39)",
  "\\'; select pg_sleep(10); --",
  "\\",
  "\\\\'",
  "%' and 1=1 and '%'='",
  "%_\\%",
  "ʼ or 1=1 --", // modifier letter apostrophe
  "’ or ‘1’=‘1", // typographic quotes
  "＇ or ＇1＇=＇1", // fullwidth apostrophes
  "null",
  "NULL",
  "{\"$ne\": null}",
  "';\n-- newline inside",
  "\u202E'; drop table facts; --",
  "🦜'); drop table graph_entities; --",
  "これは'; drop table facts; --です",
];

const singleLine = (s: string) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s);

let tdb: TestDatabase;
let replica: Replica;
let writer: TestAgent;
let reviewer: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres", { poolMax: 2 });
  writer = await addAgent(tdb.db, "writer");
  reviewer = await addAgent(tdb.db, "reviewer");
  replica = await startReplica(tdb.url!);
});
afterAll(async () => {
  await stopAllReplicas();
});

const call = <T = Record<string, unknown>>(agent: TestAgent, tool: string, args: Record<string, unknown>) => callToolOk<T>(replica.mcpUrl, agent.token, tool, args);

describe("injection texts are stored and read back verbatim", () => {
  it("facts: description, body, promotion reason and recall keywords", async () => {
    for (const [i, s] of INJECTIONS.entries()) {
      const name = `injection-${i}`;
      const description = singleLine(s) ? s : "multi-line attempt";
      await call(writer, "memory_store", { name, description, type: "reference", body: s });
      await call(reviewer, "memory_promote", { name, to: "confirmed", reason: s });

      const got = await call<{ fact: { description: string; body: string; versions: Array<{ body: string }>; events: Array<{ reason: string | null }> } }>(writer, "memory_get", { name });
      expect(got.fact.description).toBe(description);
      expect(got.fact.body).toBe(s);
      expect(got.fact.versions.map((v) => v.body)).toEqual([s]);
      expect(got.fact.events.map((e) => e.reason ?? null)).toEqual([null, s]);

      if (singleLine(s)) {
        const recalled = await call<{ hits: Array<{ name: string; body: string }> }>(writer, "memory_recall", { keywords: [s], limit: 50 });
        expect(recalled.hits.find((h) => h.name === name)?.body).toBe(s);
      }
      const row = await tdb.db.query<{ description: string; body: string; status_reason: string }>(
        "select description, body, status_reason from facts where name = $1",
        [name],
      );
      expect(row.rows).toEqual([{ description, body: s, status_reason: s }]);
    }
  });

  it("ledger: target, note, evidence and release reason; the chain still verifies", async () => {
    const storableTargets = INJECTIONS.filter((s) => singleLine(s) && s === s.trim());
    for (const s of storableTargets) {
      const evidence = `https://ci.example/run?q=${s}`;
      const note = s;
      await call(writer, "ledger_claim", { action: "publish_post", target: s });
      const recorded = await call<{ record: { target: string; note: string; evidence: string } }>(writer, "ledger_record", { action: "publish_post", target: s, evidence, note });
      expect(recorded.record).toMatchObject({ target: s, note, evidence: new URL(evidence).href });

      const checked = await call<{ status: string; record: { target: string; note: string } }>(reviewer, "ledger_check", { action: "publish_post", target: s });
      expect(checked).toMatchObject({ status: "EXECUTED", record: { target: s, note } });

      await call(writer, "ledger_claim", { action: "deploy", target: s });
      await call(writer, "ledger_release", { action: "deploy", target: s, reason: s });
      const listed = await call<{ events: Array<{ kind: string; target: string; reason: string | null }> }>(reviewer, "ledger_list", { target: s, limit: 10 });
      expect(listed.events.map((e) => [e.kind, e.target, e.reason ?? null])).toEqual([
        ["released", s, s],
        ["claimed", s, null],
        ["executed", s, null],
        ["claimed", s, null],
      ]);
    }
    const executed = await tdb.db.query<{ target: string }>("select target from ledger_events where kind = 'executed' order by seq");
    expect(executed.rows.map((r) => r.target)).toEqual(storableTargets);

    const verify = await runCli(["ledger", "verify", "--json"], { DATABASE_URL: tdb.url });
    expect(verify.code).toBe(0);
    expect(onlyJson(verify)).toMatchObject({ ok: true, rows: storableTargets.length * 4 });
  });

  it("graph: entity names, types, observations and relation types; found by search", async () => {
    const names = INJECTIONS.map((s, i) => `${s} #${i}`);
    await call(writer, "create_entities", { entities: INJECTIONS.map((s, i) => ({ name: names[i], entityType: s, observations: [s, `${s}!`] })) });
    await call(writer, "create_relations", { relations: INJECTIONS.map((s, i) => ({ from: names[i], to: names[(i + 1) % names.length], relationType: s })) });

    const opened = await call<{ entities: Array<{ name: string; entityType: string; observations: string[] }>; relations: Array<{ from: string; relationType: string }> }>(
      reviewer,
      "open_nodes",
      { names },
    );
    const byName = new Map(opened.entities.map((e) => [e.name, e]));
    for (const [i, s] of INJECTIONS.entries()) {
      expect(byName.get(names[i]!)).toMatchObject({ name: names[i], entityType: s, observations: [s, `${s}!`] });
      expect(opened.relations.filter((r) => r.from === names[i]).map((r) => r.relationType)).toEqual([s]);
      const found = await call<{ entities: Array<{ name: string }> }>(reviewer, "search_nodes", { query: s });
      expect(found.entities.map((e) => e.name)).toContain(names[i]);
    }
    const rows = await tdb.db.query<{ name: string; entity_type: string }>("select name, entity_type from graph_entities order by id");
    expect(rows.rows).toEqual(INJECTIONS.map((s, i) => ({ name: names[i], entity_type: s })));
  });

  it("nothing else changed: every table is there, the agents' scopes are as created", async () => {
    const tables = await tdb.db.query<{ n: number }>(
      "select count(*)::int as n from information_schema.tables where table_schema = 'public' and table_name in ('facts', 'agents', 'ledger_events', 'graph_entities', 'agent_tokens')",
    );
    expect(tables.rows[0]!.n).toBe(5);
    const agents = await tdb.db.query("select name, write_scopes, read_scopes from agents order by name");
    expect(agents.rows).toEqual([
      { name: "reviewer", write_scopes: ["shared"], read_scopes: [] },
      { name: "writer", write_scopes: ["shared"], read_scopes: [] },
    ]);
    const facts = await tdb.db.query<{ n: number }>("select count(*)::int as n from facts");
    expect(facts.rows[0]!.n).toBe(INJECTIONS.length);
  });
});
