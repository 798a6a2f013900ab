// Property-based fuzzing of every tool's arguments against a real service
// process: wrong types, huge strings, unicode edge cases (lone surrogates, NUL,
// RTL, emoji), control characters, nested junk, extra fields, SQL-looking text.
// Whatever comes in, the answer is a well-formed MCP result or JSON-RPC error
// (never a 500, never an "internal error", never a crash), and a refused call
// writes nothing: a digest of every table is compared before and after.
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { action, anyString, argsOf, count, entityName, factStatus, factType, isoTime, junk, mostly, scope, slug, text, url } from "./hostile.js";
import { assertAlive, callToolOk, postMcp, type Replica, startReplica, stopAllReplicas, toolCall } from "./support.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

let tdb: TestDatabase;
let replica: Replica;
let fuzzer: TestAgent;

/**
 * One digest per table the tools write (agent_tokens aside: every call may touch
 * last_used_at). A claim's id_required is left out: the one thing a refusal records
 * is that a second worker of the holding agent asked for the key without the
 * claim's id (so the holder must finish with its id from then on; docs/ledger.md).
 */
const SNAPSHOT = `
  select string_agg(t.name || ':' || t.digest, ' ' order by t.name) as digest from (
    select 'agents' as name, md5(coalesce(string_agg(x::text, '|' order by x.id), '')) as digest from agents x
    union all select 'facts', md5(coalesce(string_agg(x::text, '|' order by x.id), '')) from facts x
    union all select 'fact_versions', md5(coalesce(string_agg(x::text, '|' order by x::text), '')) from fact_versions x
    union all select 'fact_events', md5(coalesce(string_agg(x::text, '|' order by x.id), '')) from fact_events x
    union all select 'ledger_events', md5(coalesce(string_agg(x::text, '|' order by x.seq), '')) from ledger_events x
    union all select 'ledger_claims', md5(coalesce(string_agg((to_jsonb(x) - 'id_required')::text, '|' order by x::text), '')) from ledger_claims x
    union all select 'ledger_chain_head', md5(coalesce(string_agg(x::text, '|'), '')) from ledger_chain_head x
    union all select 'graph_entities', md5(coalesce(string_agg(x::text, '|' order by x.id), '')) from graph_entities x
    union all select 'graph_observations', md5(coalesce(string_agg(x::text, '|' order by x.id), '')) from graph_observations x
    union all select 'graph_relations', md5(coalesce(string_agg(x::text, '|' order by x.id), '')) from graph_relations x
  ) t`;

const snapshot = async () => (await tdb.db.query<{ digest: string }>(SNAPSHOT)).rows[0]!.digest;

const entity = fc.record({ name: mostly(entityName), entityType: mostly(text), observations: fc.array(mostly(text), { maxLength: 3 }) });
const relation = fc.record({ from: mostly(entityName), to: mostly(entityName), relationType: mostly(text) });
const paging = { scope, limit: count, offset: fc.integer({ min: 0, max: 100 }) };
const key = { action, target: text };

/**
 * Every tool with its fields; `reads` tools must never write, even when they
 * succeed. `example` is a call that succeeds on the seeded data, run first, so
 * that each property surely covers the success path too (with explicit scopes:
 * the fuzzing may have stored the same names in another scope).
 */
const TOOLS: Array<{ name: string; example: unknown; reads: boolean; args: fc.Arbitrary<unknown> }> = [
  { name: "whoami", example: {}, reads: true, args: argsOf({}) },
  {
    name: "memory_store",
    example: { name: "fuzz-example", description: "d", type: "project", body: "b" },
    reads: false,
    args: argsOf({ name: slug, description: text, type: factType, body: text, scope, version: count }, ["name", "description", "type", "body"]),
  },
  {
    name: "memory_recall",
    example: { keywords: ["seed"] },
    reads: true,
    args: argsOf({ keywords: fc.array(mostly(text), { minLength: 1, maxLength: 4 }), type: factType, status: factStatus, scope, limit: count }, ["keywords"]),
  },
  { name: "memory_get", example: { name: "seed-fact", scope: "shared" }, reads: true, args: argsOf({ name: slug, scope }, ["name"]) },
  {
    name: "memory_list",
    example: {},
    reads: true,
    args: argsOf({ status: factStatus, type: factType, scope, author: fc.constantFrom("author", "fuzzer", "nobody"), reviewable: fc.boolean(), limit: count, cursor: text }),
  },
  {
    name: "memory_promote",
    example: { name: "seed-fact", scope: "shared", to: "deprecated", reason: "fuzz example" },
    reads: false,
    args: argsOf({ name: slug, to: fc.constantFrom("confirmed", "deprecated"), reason: text, scope, version: count }, ["name", "to", "reason"]),
  },
  { name: "ledger_check", example: { action: "publish_post", target: "seed" }, reads: true, args: argsOf(key, ["action", "target"]) },
  { name: "ledger_claim", example: { action: "deploy", target: "fuzz-example" }, reads: false, args: argsOf({ ...key, ttl_seconds: fc.integer({ min: 10, max: 86_400 }) }, ["action", "target"]) },
  { name: "ledger_record", example: { action: "publish_post", target: "fuzz-example", evidence: "https://example.com/x" }, reads: false, args: argsOf({ ...key, evidence: url, note: text }, ["action", "target", "evidence"]) },
  { name: "ledger_release", example: { action: "deploy", target: "fuzz-example", reason: "done" }, reads: false, args: argsOf({ ...key, reason: text }, ["action", "target", "reason"]) },
  {
    name: "ledger_list",
    example: {},
    reads: true,
    args: argsOf({ action, target: text, actor: text, kind: fc.constantFrom("claimed", "executed", "released"), since: isoTime, limit: count, cursor: text }),
  },
  { name: "create_entities", example: { entities: [{ name: "Fuzz Example", entityType: "t", observations: [] }] }, reads: false, args: argsOf({ entities: fc.array(entity, { maxLength: 4 }), scope }, ["entities"]) },
  { name: "create_relations", example: { relations: [{ from: "A", to: "B", relationType: "r" }] }, reads: false, args: argsOf({ relations: fc.array(relation, { maxLength: 4 }), scope }, ["relations"]) },
  {
    name: "add_observations",
    example: { observations: [{ entityName: "Seed Entity", contents: ["fuzz example"] }] },
    reads: false,
    args: argsOf({ observations: fc.array(fc.record({ entityName: mostly(entityName), contents: fc.array(mostly(text), { maxLength: 3 }) }), { maxLength: 3 }), scope }, [
      "observations",
    ]),
  },
  { name: "delete_entities", example: { entityNames: ["nothing"] }, reads: false, args: argsOf({ entityNames: fc.array(mostly(entityName), { maxLength: 4 }), scope }, ["entityNames"]) },
  {
    name: "delete_observations",
    example: { deletions: [{ entityName: "Seed Entity", observations: ["x"] }] },
    reads: false,
    args: argsOf({ deletions: fc.array(fc.record({ entityName: mostly(entityName), observations: fc.array(mostly(text), { maxLength: 3 }) }), { maxLength: 3 }), scope }, [
      "deletions",
    ]),
  },
  { name: "delete_relations", example: { relations: [{ from: "A", to: "B", relationType: "r" }] }, reads: false, args: argsOf({ relations: fc.array(relation, { maxLength: 4 }), scope }, ["relations"]) },
  { name: "read_graph", example: {}, reads: true, args: argsOf(paging) },
  { name: "search_nodes", example: { query: "seed" }, reads: true, args: argsOf({ query: mostly(text), ...paging }, ["query"]) },
  {
    name: "read_relations",
    example: { names: ["Seed Entity"] },
    reads: true,
    args: argsOf({ names: fc.array(mostly(entityName), { maxLength: 4 }), unattached: fc.boolean(), scope, limit: count, offset: fc.integer({ min: 0, max: 100 }) }),
  },
  {
    name: "read_observations",
    example: { name: "Example Entity" },
    reads: true,
    args: argsOf({ name: mostly(entityName), scope, limit: count, offset: fc.integer({ min: 0, max: 100 }) }, ["name"]),
  },
  { name: "open_nodes", example: { names: ["Seed Entity"] }, reads: true, args: argsOf({ names: fc.array(mostly(entityName), { maxLength: 4 }), scope }, ["names"]) },
];

beforeAll(async () => {
  tdb = await createTestDatabase("postgres", { poolMax: 2 });
  fuzzer = await addAgent(tdb.db, "fuzzer", { scopes: ["shared", "team"] });
  const author = await addAgent(tdb.db, "author", { scopes: ["shared", "team", "other-team"] });
  replica = await startReplica(tdb.url!);
  // Something to hit: a fact, a claim and a record, entities and a relation.
  await callToolOk(replica.mcpUrl, author.token, "memory_store", { name: "seed-fact", description: "seed", type: "project", body: "b" });
  await callToolOk(replica.mcpUrl, author.token, "ledger_claim", { action: "publish_post", target: "seed" });
  await callToolOk(replica.mcpUrl, author.token, "ledger_record", { action: "publish_post", target: "seed", evidence: "https://example.com/seed" });
  await callToolOk(replica.mcpUrl, author.token, "ledger_claim", { action: "deploy-prod", target: "seed" });
  // The ledger_record example records what the fuzzer claimed.
  await callToolOk(replica.mcpUrl, fuzzer.token, "ledger_claim", { action: "publish_post", target: "fuzz-example" });
  // "Example Entity" is never generated, so the delete tools' fuzzing cannot remove it.
  await callToolOk(replica.mcpUrl, author.token, "create_entities", {
    entities: [
      { name: "Seed Entity", entityType: "seed", observations: ["o"] },
      { name: "Example Entity", entityType: "seed", observations: ["o"] },
    ],
  });
  await callToolOk(replica.mcpUrl, author.token, "create_relations", { relations: [{ from: "Seed Entity", to: "Fuzz Entity", relationType: "knows" }] });
});
afterAll(async () => {
  await stopAllReplicas();
});

/** The service's error log lines (level 50), without stack traces. */
const serviceErrors = () =>
  replica.process
    .stdout()
    .split("\n")
    .filter((l) => l.includes('"level":50'))
    .map((l) => l.replace(/"stack":"(?:[^"\\]|\\.)*"/g, ""))
    .join("\n");

type Answer = { refused: boolean; summary: string };

/** Sends one raw tools/call and checks the answer's shape; returns whether it was a refusal. */
async function callAndCheck(name: string, args: unknown): Promise<Answer> {
  const body = toolCall(name, args);
  const res = await postMcp(replica.mcpUrl, fuzzer.token, body);
  const text = await res.text();
  let summary = `${name}(${JSON.stringify(args).slice(0, 300)}) -> ${res.status} ${text.slice(0, 400)}`;
  expect(res.status, summary).toBe(200);
  const message = JSON.parse(text) as { jsonrpc: string; id: number; result?: unknown; error?: { code: unknown; message: unknown } };
  expect(message.jsonrpc, summary).toBe("2.0");
  expect(message.id, summary).toBe(body.id);
  if (message.error) {
    expect(Number.isInteger(message.error.code), summary).toBe(true);
    expect(typeof message.error.message, summary).toBe("string");
    expect(message.error.message, summary).not.toMatch(/internal error/i);
    return { refused: true, summary };
  }
  const parsed = CallToolResultSchema.safeParse(message.result);
  expect(parsed.success, summary).toBe(true);
  const result = parsed.data!;
  const words = result.content.map((c) => (c.type === "text" ? c.text : "")).join(" ");
  if (/internal error/i.test(words)) summary += `\nservice log: ${serviceErrors().slice(-2000)}`;
  expect(words.length, summary).toBeGreaterThan(0);
  // Only vetted messages: an unexpected failure would read "Internal error while running …".
  expect(words, summary).not.toMatch(/internal error/i);
  if (!result.isError) expect(result.structuredContent, summary).toBeTypeOf("object");
  return { refused: result.isError === true, summary };
}

/** Answers by tool: refused or not, to see that the fuzzing reaches past the schema into the stores. */
const tally = new Map<string, { ok: number; refused: number }>();

async function fuzzOnce(name: string, reads: boolean, args: unknown): Promise<void> {
  const before = await snapshot();
  const answer = await callAndCheck(name, args);
  const t = tally.get(name) ?? { ok: 0, refused: 0 };
  t[answer.refused ? "refused" : "ok"]++;
  tally.set(name, t);
  if (answer.refused || reads) expect(await snapshot(), `${answer.refused ? "refused" : "read-only"} call changed the database: ${answer.summary}`).toBe(before);
}

describe("fuzzed tool arguments", () => {
  it.each(TOOLS)("$name: always a well-formed answer, and a refused call writes nothing", async ({ name, example, reads, args }) => {
    await fc.assert(
      fc.asyncProperty(args, (a) => fuzzOnce(name, reads, a)),
      { numRuns: RUNS, examples: [[example]] },
    );
    assertAlive(replica);
    // Some calls got through and some were refused: both paths were exercised.
    const t = tally.get(name)!;
    if (name !== "whoami") expect(t.refused, JSON.stringify(t)).toBeGreaterThan(0);
    expect(t.ok, JSON.stringify(t)).toBeGreaterThan(0);
  });

  it("unknown tools and junk tool names are refused cleanly", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyString, fc.constantFrom("memory_delete", "MEMORY_STORE", "memory_store ", "__proto__")), junk, (name, args) => fuzzOnce(name, true, args)),
      { numRuns: RUNS },
    );
  });

  it("the service is still up and answering normally afterwards", async () => {
    assertAlive(replica);
    expect((await fetch(`${replica.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${replica.url}/readyz`)).status).toBe(200);
    const me = await callToolOk<{ name: string }>(replica.mcpUrl, fuzzer.token, "whoami", {});
    expect(me.name).toBe("fuzzer");
  });
});
