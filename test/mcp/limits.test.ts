// What one call may ask of the service (audit finding 1a, docs/limits.md): an
// oversized request is refused with a message naming the limit, on both
// backends, before any SQL runs (a 100,000-character search_nodes query held the
// embedded database ~3 s per call). The database is real; the wrapper only
// counts the statements that reach it.
import { beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.js";
import { createAgent } from "../../src/auth/store.js";
import type { Database } from "../../src/db/core/database.js";
import { DomainError } from "../../src/errors.js";
import { listFacts } from "../../src/facts/lifecycle/list.js";
import { recallFacts } from "../../src/facts/recall/recall.js";
import { openNodes, readGraph, readObservations } from "../../src/graph/read.js";
import { readRelations } from "../../src/graph/relations.js";
import { searchNodes } from "../../src/graph/search.js";
import type { GraphWriter } from "../../src/graph/types.js";
import { addObservations, createEntities, createRelations, deleteEntities, deleteObservations, deleteRelations } from "../../src/graph/store.js";
import { graphCallMaxChars } from "../../src/graph/access.js";
import { loadConfig } from "../../src/config/index.js";
import { countTrigrams, EMBEDDED_CALL_MAX_CHARS, MAX_CHARS_PER_CALL, MAX_OFFSET, MAX_SEARCH_QUERY_CHARS, MAX_SEARCH_TRIGRAMS } from "../../src/limits.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

const ANSWER = 1_000_000;
/** `n` pseudo-random six-letter words: their trigrams are nearly all different. */
function distinctWords(n: number, seed = 1): string {
  let x = seed;
  const letter = () => String.fromCharCode(97 + ((x = (x * 1103515245 + 12345) % 2 ** 31) % 26));
  return Array.from({ length: n }, () => Array.from({ length: 6 }, letter).join("")).join(" ");
}

async function refused(promise: Promise<unknown>, message: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe("invalid");
  expect((error as DomainError).message).toMatch(message);
}

describe("countTrigrams", () => {
  it("counts pg_trgm's padded word trigrams, distinct, case-folded", () => {
    // show_trgm('cat') = {"  c"," ca","at ","cat"}
    expect(countTrigrams(["cat"])).toBe(4);
    expect(countTrigrams(["Cat CAT cat"])).toBe(4);
    expect(countTrigrams(["cat", "dog"])).toBe(8);
    expect(countTrigrams(["..."])).toBe(0);
    expect(countTrigrams([distinctWords(1000)], 10)).toBe(11);
  });
});

describe.each(BACKENDS)("request limits on %s", (backend) => {
  let tdb: TestDatabase;
  let db: Database;
  let statements = 0;
  let w: GraphWriter;
  let caller: Caller;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const agent = await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["shared"] });
    w = { scope: "shared", agentId: agent.id, maxChars: 4096 };
    caller = { agentId: agent.id, name: "writer", kind: "agent", writeScopes: ["shared"], readScopes: [], tokenId: 0 };
    await createEntities(tdb.db, w, [{ name: "alpha", entityType: "t", observations: ["a".repeat(10)] }]);
    const real = tdb.db;
    db = {
      ...real,
      query: (sql, params) => {
        statements++;
        return real.query(sql, params);
      },
      transaction: (work, options) => {
        statements++;
        return real.transaction(work, options);
      },
    };
  });

  const noSql = async (promise: Promise<unknown>, message: RegExp) => {
    const before = statements;
    await refused(promise, message);
    expect(statements - before, "statements sent to the database").toBe(0);
  };

  it("refuses a search_nodes query past its length or its distinct trigrams", async () => {
    await noSql(searchNodes(db, "shared", "x".repeat(100_000), {}, ANSWER, 10_000), new RegExp(`query is 100000 characters long; the limit is ${MAX_SEARCH_QUERY_CHARS}`));
    const many = distinctWords(120);
    expect(many.length).toBeLessThanOrEqual(MAX_SEARCH_QUERY_CHARS);
    await noSql(searchNodes(db, "shared", many, {}, ANSWER, 10_000), new RegExp(`more than ${MAX_SEARCH_TRIGRAMS} distinct trigrams`));
    // At the limit, with few trigrams: searched as usual.
    expect((await searchNodes(db, "shared", "a".repeat(MAX_SEARCH_QUERY_CHARS), {}, ANSWER, 10_000)).entities).toEqual([]);
    expect((await searchNodes(db, "shared", "alph", {}, ANSWER, 10_000)).entities.map((e) => e.name)).toEqual(["alpha"]);
  });

  it("refuses offsets past the limit in every paged graph read", async () => {
    const page = { offset: MAX_OFFSET + 1 };
    const message = new RegExp(`offset ${MAX_OFFSET + 1} is past the limit of ${MAX_OFFSET}`);
    await noSql(readGraph(db, "shared", page, ANSWER), message);
    await noSql(searchNodes(db, "shared", "alpha", page, ANSWER, 10_000), message);
    await noSql(readRelations(db, "shared", page, ANSWER), message);
    await noSql(readObservations(db, "shared", "alpha", page, ANSWER), message);
    expect((await readGraph(db, "shared", { offset: MAX_OFFSET }, ANSWER)).entities).toEqual([]);
  });

  it("refuses graph calls whose texts add up past the per-call total", async () => {
    const big = "b".repeat(4000);
    const entities = Array.from({ length: 300 }, (_, i) => ({ name: `e${i}`, entityType: "t", observations: [big] }));
    await noSql(createEntities(db, w, entities), /entities carry \d+ characters in total; at most 1000000/);
    await noSql(deleteEntities(db, w, Array.from({ length: 300 }, () => big)), /entityNames carry \d+ characters in total/);
    await noSql(deleteRelations(db, w, Array.from({ length: 300 }, () => ({ from: big, to: "x", relationType: "r" }))), /relations carry \d+ characters in total/);
    await noSql(openNodes(db, "shared", Array.from({ length: 300 }, () => big), ANSWER), /names carry \d+ characters in total/);
  });

  it("GRAPH_CALL_MAX_CHARS bounds a graph write: by default a quarter of the total on the embedded database", async () => {
    const config = (env: Record<string, string>) => ({ config: loadConfig({ ...env }), db: tdb.db });
    expect(graphCallMaxChars(config({}))).toBe(backend === "pglite" ? EMBEDDED_CALL_MAX_CHARS : MAX_CHARS_PER_CALL);
    expect(graphCallMaxChars(config({ GRAPH_CALL_MAX_CHARS: "5000" }))).toBe(5000);
    expect(() => loadConfig({ GRAPH_CALL_MAX_CHARS: "10" })).toThrow(/GRAPH_CALL_MAX_CHARS must be a whole number from 1000 to 1000000/);
    const small = { ...w, maxCallChars: 5000 };
    const entities = Array.from({ length: 3 }, (_, i) => ({ name: `big${i}`, entityType: "t", observations: ["c".repeat(2000)] }));
    await noSql(createEntities(db, small, entities), /entities carry 6015 characters in total; at most 5000 are accepted per call \(GRAPH_CALL_MAX_CHARS\)/);
    await noSql(addObservations(db, small, [{ entityName: "alpha", contents: ["c".repeat(2600), "d".repeat(2600)] }]), /observations carry \d+ characters in total; at most 5000/);
    await noSql(createRelations(db, small, Array.from({ length: 2 }, (_, i) => ({ from: "alpha", to: `x${i}`, relationType: "r".repeat(2600) }))), /relations carry \d+ characters in total; at most 5000/);
  });

  it("refuses delete_observations with more texts than a call may carry", async () => {
    await noSql(deleteObservations(db, w, [{ entityName: "alpha", observations: Array.from({ length: 10_001 }, (_, i) => `o${i}`) }]), /10001 texts in total; at most 10000/);
  });

  it("refuses recall keywords past their distinct trigrams together, and overlong cursors", async () => {
    const keywords = Array.from({ length: 10 }, (_, k) => distinctWords(28, k + 1));
    await noSql(recallFacts(db, caller, { keywords }), new RegExp(`keywords have more than ${MAX_SEARCH_TRIGRAMS} distinct trigrams`));
    await noSql(listFacts(db, caller, { cursor: "e".repeat(10_000) }), /cursor is not valid/);
    expect((await recallFacts(db, caller, { keywords: ["deploy", "migration"] })).hits).toEqual([]);
  });
});
