// The facts store on both backends: storing, versions, and the database
// backstops behind the rules.
import { beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.js";
import { getFact } from "../../src/facts/lifecycle/get.js";
import { promoteFact } from "../../src/facts/review/promote.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller, counts, domainError, fact, store } from "./helpers.js";

async function dbError(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("expected the database to refuse, but it accepted");
}

describe.each(BACKENDS)("facts store on %s", (backend) => {
  let tdb: TestDatabase;
  let writer: Caller;
  let reviewer: Caller;
  let outsider: Caller;
  let opsReader: Caller;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    writer = await addCaller(tdb.db, "writer", { scopes: ["shared", "blog"] });
    reviewer = await addCaller(tdb.db, "reviewer", { scopes: ["shared", "blog"] });
    outsider = await addCaller(tdb.db, "outsider", { scopes: ["shared"] });
    opsReader = await addCaller(tdb.db, "ops-reader", { scopes: ["shared"], readScopes: ["blog"] });
  });

  describe("storing", () => {
    it("creates a draft, version 1, with its first version and a created event", async () => {
      const r = await store(tdb.db, writer, fact("first-fact"));
      expect(r.outcome).toBe("created");
      expect(r.fact).toMatchObject({ name: "first-fact", scope: "shared", status: "draft", version: 1, author: "writer", statusBy: null });
      const full = await getFact(tdb.db, outsider, { name: "first-fact" });
      expect(full.versions.map((v) => [v.version, v.author])).toEqual([[1, "writer"]]);
      expect(full.events.map((e) => [e.kind, e.actor, e.from, e.to])).toEqual([["created", "writer", null, "draft"]]);
    });

    it("accepts 200 characters of Japanese or emoji as a description (characters, not bytes or UTF-16 units)", async () => {
      await store(tdb.db, writer, fact("japanese-description", { description: "日".repeat(200) }));
      await store(tdb.db, writer, fact("emoji-description", { description: "🚀".repeat(200) }));
      const full = await getFact(tdb.db, writer, { name: "emoji-description" });
      expect(full.description).toBe("🚀".repeat(200));
    });

    it("accepts a body of exactly the limit", async () => {
      const r = await store(tdb.db, writer, fact("long-body", { body: "x".repeat(16_000) }));
      expect(r.fact.bodyChars).toBe(16_000);
    });

    const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
      ["an upper-case name", { name: "Deploy-Rule" }, /name "Deploy-Rule" is not valid/],
      ["a name with a double hyphen", { name: "deploy--rule" }, /kebab-case/],
      ["a name over 64 characters", { name: "a".repeat(65) }, /at most 64/],
      ["an empty description", { description: "  " }, /description is empty/],
      ["a two-line description", { description: "first line\nsecond line" }, /single line/],
      ["a 201-character description", { description: "日".repeat(201) }, /201 characters; the limit is 200/],
      ["an unknown type", { type: "opinion" }, /type "opinion" is not valid/],
      ["an empty body", { body: " \n " }, /body is empty/],
      ["a body over the limit", { body: "x".repeat(16_001) }, /16001 characters; the limit is 16000/],
      ["a malformed scope", { scope: "Blog!" }, /scope "Blog!" is not valid/],
      ["version 0", { version: 0 }, /version must be a whole number/],
    ];
    it.each(refusals)("refuses %s and writes nothing", async (_what, overrides, message) => {
      const before = await counts(tdb.db);
      const error = await domainError(store(tdb.db, writer, { ...fact("refused-fact"), ...overrides } as never));
      expect(error.code).toBe("invalid");
      expect(error.message).toMatch(message);
      expect(await counts(tdb.db)).toEqual(before);
    });

    it("refuses a scope the caller may not write, naming the scopes it may write, and writes nothing", async () => {
      const before = await counts(tdb.db);
      const error = await domainError(store(tdb.db, opsReader, fact("ops-note", { scope: "blog" })));
      expect(error.code).toBe("forbidden");
      expect(error.message).toContain('may not write to scope "blog"');
      expect(error.message).toContain("Scopes you may write: shared");
      expect(await counts(tdb.db)).toEqual(before);
    });

    it("refuses to create a name that exists, naming the current version and its author", async () => {
      await store(tdb.db, writer, fact("taken-name"));
      const error = await domainError(store(tdb.db, reviewer, fact("taken-name", { description: "another" })));
      expect(error.code).toBe("conflict");
      expect(error.message).toContain("version 1 by writer");
      expect(error.message).toContain("version: 1");
    });

    it("lets the same name exist in two scopes", async () => {
      await store(tdb.db, writer, fact("twin-name"));
      const r = await store(tdb.db, writer, fact("twin-name", { scope: "blog" }));
      expect(r.fact.scope).toBe("blog");
    });
  });

  describe("versions", () => {
    it("stores a new version as a draft (even of a confirmed fact) and keeps the old one", async () => {
      await store(tdb.db, writer, fact("evolving", { body: "v1 body" }));
      await promoteFact(tdb.db, reviewer, { name: "evolving", to: "confirmed", reason: "checked" });
      const r = await store(tdb.db, reviewer, fact("evolving", { body: "v2 body", version: 1 }));
      expect(r).toMatchObject({ outcome: "updated", previousVersion: 1 });
      expect(r.fact).toMatchObject({ version: 2, status: "draft", author: "reviewer", statusBy: null, statusReason: null });
      const full = await getFact(tdb.db, writer, { name: "evolving" });
      expect(full.body).toBe("v2 body");
      expect(full.versions.map((v) => [v.version, v.author, v.body])).toEqual([
        [1, "writer", "v1 body"],
        [2, "reviewer", "v2 body"],
      ]);
      expect(full.events.map((e) => [e.kind, e.version, e.from, e.to])).toEqual([
        ["created", 1, null, "draft"],
        ["confirmed", 1, "draft", "confirmed"],
        ["updated", 2, "confirmed", "draft"],
      ]);
    });

    it("refuses a stale version, naming the current version and its author, and writes nothing", async () => {
      await store(tdb.db, writer, fact("contested"));
      await store(tdb.db, reviewer, fact("contested", { body: "reviewer's change", version: 1 }));
      const before = await counts(tdb.db);
      const error = await domainError(store(tdb.db, writer, fact("contested", { body: "writer's late change", version: 1 })));
      expect(error.code).toBe("conflict");
      expect(error.message).toContain("the current version is 2, stored by reviewer");
      expect(await counts(tdb.db)).toEqual(before);
    });

    it("answers an identical store with 'unchanged' and keeps the review", async () => {
      await store(tdb.db, writer, fact("stable"));
      await promoteFact(tdb.db, reviewer, { name: "stable", to: "confirmed", reason: "checked" });
      const before = await counts(tdb.db);
      const r = await store(tdb.db, writer, fact("stable", { version: 1 }));
      expect(r.outcome).toBe("unchanged");
      expect(r.fact).toMatchObject({ version: 1, status: "confirmed", statusBy: "reviewer" });
      expect(await counts(tdb.db)).toEqual(before);
    });

    it("refuses a version for a name that does not exist", async () => {
      const error = await domainError(store(tdb.db, writer, fact("never-stored", { version: 3 })));
      expect(error.code).toBe("not_found");
      expect(error.message).toContain("call memory_store without version");
    });
  });

  describe("database backstops", () => {
    it("keeps history append-only", async () => {
      await store(tdb.db, writer, fact("immutable-history"));
      for (const statement of [
        "update fact_versions set body = 'rewritten'",
        "delete from fact_versions",
        "update fact_events set reason = 'rewritten'",
        "delete from fact_events",
        "truncate fact_events",
        "truncate fact_versions",
      ]) {
        const e = await dbError(tdb.db.query(statement));
        // fact_versions is also protected from TRUNCATE by the events' foreign key.
        expect(e.message, statement).toMatch(/append-only|cannot truncate a table referenced in a foreign key/);
      }
    });

    it("refuses self-approval, forbidden transitions and bad rows even from direct SQL", async () => {
      await store(tdb.db, writer, fact("sql-guard"));
      const selfApprove = await dbError(
        tdb.db.query(
          "update facts set status = 'confirmed', status_by_id = author_id, status_at = now(), status_reason = 'me' where name = 'sql-guard'",
        ),
      );
      expect(selfApprove.code).toBe("23514");
      expect(selfApprove.message).toContain("facts_no_self_approval");
      await promoteFact(tdb.db, writer, { name: "sql-guard", to: "deprecated", reason: "wrong" });
      const back = await dbError(
        tdb.db.query("update facts set status = 'draft', status_by_id = null, status_at = null, status_reason = null where name = 'sql-guard'"),
      );
      expect(back.message).toContain("cannot go from deprecated to draft");
      const silentEdit = await dbError(tdb.db.query("update facts set body = 'quietly changed' where name = 'sql-guard'"));
      expect(silentEdit.message).toContain("new version");
      const badName = await dbError(
        tdb.db.query("insert into facts (scope, name, description, type, body, author_id) values ('shared', 'Bad Name', 'd', 'project', 'b', $1)", [
          writer.agentId,
        ]),
      );
      expect(badName.code).toBe("23514");
      const twoLines = await dbError(
        tdb.db.query("insert into facts (scope, name, description, type, body, author_id) values ('shared', 'two-lines', E'a\\nb', 'project', 'b', $1)", [
          writer.agentId,
        ]),
      );
      expect(twoLines.message).toContain("facts_description_format");
    });
  });
});
