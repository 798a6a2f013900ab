// The lifecycle on both backends: promotions, the self-approval guard, scope
// isolation, and listing (paging and the review queue).
import { beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.js";
import { listFacts } from "../../src/facts/lifecycle/list.js";
import { reviewQueue } from "../../src/facts/review/queue.js";
import { getFact } from "../../src/facts/lifecycle/get.js";
import { promoteFact } from "../../src/facts/review/promote.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller, counts, domainError, fact, store } from "./helpers.js";

describe.each(BACKENDS)("facts lifecycle on %s", (backend) => {
  let tdb: TestDatabase;
  let writer: Caller;
  let reviewer: Caller;
  let human: Caller;
  let outsider: Caller;
  let opsReader: Caller;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    writer = await addCaller(tdb.db, "writer", { scopes: ["shared", "blog"] });
    reviewer = await addCaller(tdb.db, "reviewer", { scopes: ["shared", "blog"] });
    human = await addCaller(tdb.db, "alice", { kind: "human", scopes: ["*"] });
    outsider = await addCaller(tdb.db, "outsider", { scopes: ["shared"] });
    opsReader = await addCaller(tdb.db, "ops-reader", { scopes: ["shared"], readScopes: ["blog"] });
  });

  describe("promotion", () => {
    it("refuses the author confirming, says who may, and lets another agent confirm", async () => {
      await store(tdb.db, writer, fact("needs-review"));
      const before = await counts(tdb.db);
      const refused = await domainError(promoteFact(tdb.db, writer, { name: "needs-review", to: "confirmed", reason: "I am sure" }));
      expect(refused.code).toBe("forbidden");
      expect(refused.message).toContain("You (writer) wrote version 1");
      expect(refused.message).toMatch(/Agents who may confirm it: alice \(human\), ops-reader, outsider, reviewer/);
      expect(await counts(tdb.db)).toEqual(before);

      const r = await promoteFact(tdb.db, reviewer, { name: "needs-review", to: "confirmed", reason: "reproduced it", version: 1 });
      expect(r).toMatchObject({ from: "draft", to: "confirmed", actor: "reviewer", reason: "reproduced it" });
      expect(r.fact).toMatchObject({ status: "confirmed", statusBy: "reviewer", author: "writer" });
    });

    it("lets a human reviewer confirm", async () => {
      await store(tdb.db, writer, fact("human-reviewed"));
      const r = await promoteFact(tdb.db, human, { name: "human-reviewed", to: "confirmed", reason: "matches the runbook" });
      expect(r.fact.statusBy).toBe("alice");
    });

    it("lets the author deprecate their own fact", async () => {
      await store(tdb.db, writer, fact("my-mistake"));
      const r = await promoteFact(tdb.db, writer, { name: "my-mistake", to: "deprecated", reason: "wrong: the flag was removed" });
      expect(r).toMatchObject({ from: "draft", to: "deprecated" });
    });

    it("allows draft → confirmed → deprecated and nothing else, saying which transitions are allowed", async () => {
      await store(tdb.db, writer, fact("lifecycle"));
      await promoteFact(tdb.db, reviewer, { name: "lifecycle", to: "confirmed", reason: "ok" });
      const again = await domainError(promoteFact(tdb.db, human, { name: "lifecycle", to: "confirmed", reason: "ok too" }));
      expect(again.code).toBe("conflict");
      expect(again.message).toContain("already confirmed (by reviewer");
      expect(again.message).toContain("Allowed: draft → confirmed, draft → deprecated, confirmed → deprecated");
      await promoteFact(tdb.db, human, { name: "lifecycle", to: "deprecated", reason: "superseded by the new pipeline" });
      for (const to of ["confirmed", "deprecated"] as const) {
        const e = await domainError(promoteFact(tdb.db, reviewer, { name: "lifecycle", to, reason: "try" }));
        expect(e.message).toContain(`from deprecated to ${to}`);
        expect(e.message).toContain("new version stored with memory_store");
      }
      const full = await getFact(tdb.db, writer, { name: "lifecycle" });
      expect(full.events.map((e) => `${e.kind}:${e.actor}:${e.reason ?? ""}`)).toEqual([
        "created:writer:",
        "confirmed:reviewer:ok",
        "deprecated:alice:superseded by the new pipeline",
      ]);
      expect(full).toMatchObject({ status: "deprecated", statusBy: "alice", statusReason: "superseded by the new pipeline" });
    });

    it("refuses a stale version and an empty or oversized reason", async () => {
      await store(tdb.db, writer, fact("moving-target"));
      await store(tdb.db, writer, fact("moving-target", { body: "changed", version: 1 }));
      const stale = await domainError(promoteFact(tdb.db, reviewer, { name: "moving-target", to: "confirmed", reason: "ok", version: 1 }));
      expect(stale.message).toContain("the current version is 2, stored by writer");
      expect((await domainError(promoteFact(tdb.db, reviewer, { name: "moving-target", to: "confirmed", reason: " " }))).message).toContain("reason is empty");
      expect((await domainError(promoteFact(tdb.db, reviewer, { name: "moving-target", to: "confirmed", reason: "r".repeat(2001) }))).message).toContain(
        "limit is 2000",
      );
    });

    it("matches the exact name only", async () => {
      await store(tdb.db, writer, fact("exact-name-rule"));
      const e = await domainError(promoteFact(tdb.db, reviewer, { name: "exact-name", to: "confirmed", reason: "ok" }));
      expect(e.code).toBe("not_found");
    });

    it("asks for a scope when the name exists in several readable scopes", async () => {
      await store(tdb.db, writer, fact("both-places"));
      await store(tdb.db, writer, fact("both-places", { scope: "blog" }));
      const e = await domainError(promoteFact(tdb.db, reviewer, { name: "both-places", to: "confirmed", reason: "ok" }));
      expect(e.message).toContain("several scopes you can read: blog, shared");
      expect((await domainError(getFact(tdb.db, reviewer, { name: "both-places" }))).message).toContain("blog, shared");
      // A caller that reads only one of the scopes sees no ambiguity.
      expect((await getFact(tdb.db, outsider, { name: "both-places" })).scope).toBe("shared");
      const r = await promoteFact(tdb.db, reviewer, { name: "both-places", scope: "blog", to: "confirmed", reason: "ok" });
      expect(r.fact.scope).toBe("blog");
    });
  });

  describe("scopes", () => {
    it("hides a fact in an unreadable scope exactly like a missing one (get and promote)", async () => {
      const askGet = () => domainError(getFact(tdb.db, outsider, { name: "blog-secret", scope: "blog" }));
      const askGetAnywhere = () => domainError(getFact(tdb.db, outsider, { name: "blog-secret" }));
      const askPromote = () => domainError(promoteFact(tdb.db, outsider, { name: "blog-secret", to: "deprecated", reason: "x" }));
      const before = [await askGet(), await askGetAnywhere(), await askPromote()].map((e) => `${e.code}: ${e.message}`);
      await store(tdb.db, writer, fact("blog-secret", { scope: "blog" }));
      const after = [await askGet(), await askGetAnywhere(), await askPromote()].map((e) => `${e.code}: ${e.message}`);
      expect(after).toEqual(before);
      expect(after[0]).toMatch(/^not_found: No fact named "blog-secret"/);
    });

    it("lets a read-only scope be read but not promoted or changed", async () => {
      await store(tdb.db, writer, fact("blog-style", { scope: "blog" }));
      expect((await getFact(tdb.db, opsReader, { name: "blog-style" })).scope).toBe("blog");
      const e = await domainError(promoteFact(tdb.db, opsReader, { name: "blog-style", to: "confirmed", reason: "ok" }));
      expect(e.code).toBe("forbidden");
      expect(e.message).toContain('may not write to scope "blog"');
      const s = await domainError(store(tdb.db, opsReader, fact("blog-style", { scope: "blog", version: 1 })));
      expect(s.code).toBe("forbidden");
    });
  });

  describe("listing", () => {
    it("pages newest first with a cursor, without gaps or repeats", async () => {
      const pager = await addCaller(tdb.db, "pager", { scopes: ["paging"] });
      const names = Array.from({ length: 25 }, (_, i) => `paged-${String(i).padStart(2, "0")}`);
      for (const name of names) await store(tdb.db, pager, fact(name, { scope: "paging" }));
      const seen: string[] = [];
      let cursor: string | undefined;
      const sizes: number[] = [];
      do {
        const page = await listFacts(tdb.db, pager, { scope: "paging", limit: 10, cursor });
        sizes.push(page.facts.length);
        seen.push(...page.facts.map((f) => f.name));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(sizes).toEqual([10, 10, 5]);
      expect(seen).toEqual([...names].reverse());
    });

    it("gives the review queue: others' drafts in scopes the caller may write", async () => {
      const qa = await addCaller(tdb.db, "qa", { scopes: ["queue"] });
      const qb = await addCaller(tdb.db, "qb", { scopes: ["queue"] });
      const qReader = await addCaller(tdb.db, "q-reader", { scopes: ["shared"], readScopes: ["queue"] });
      await store(tdb.db, qa, fact("queue-a1", { scope: "queue" }));
      await store(tdb.db, qa, fact("queue-a2", { scope: "queue" }));
      await store(tdb.db, qb, fact("queue-b1", { scope: "queue" }));
      await promoteFact(tdb.db, qb, { name: "queue-a2", to: "confirmed", reason: "ok" });
      const forB = await listFacts(tdb.db, qb, { reviewable: true, scope: "queue" });
      expect(forB.facts.map((f) => f.name)).toEqual(["queue-a1"]);
      const forA = await listFacts(tdb.db, qa, { reviewable: true, scope: "queue" });
      expect(forA.facts.map((f) => f.name)).toEqual(["queue-b1"]);
      // Reading a scope is not enough to review in it.
      expect((await listFacts(tdb.db, qReader, { reviewable: true, scope: "queue" })).facts).toEqual([]);
      expect((await listFacts(tdb.db, qReader, { scope: "queue", author: "qa" })).facts.map((f) => f.name)).toEqual(["queue-a2", "queue-a1"]);
    });

    it("lists the review queue oldest first, as memory_review and the console do, page after page", async () => {
      const author = await addCaller(tdb.db, "order-author", { scopes: ["order"] });
      const reviewer = await addCaller(tdb.db, "order-reviewer", { scopes: ["order"] });
      const names = ["order-1", "order-2", "order-3"];
      for (const name of names) await store(tdb.db, author, fact(name, { scope: "order" }));
      const first = await listFacts(tdb.db, reviewer, { reviewable: true, status: "draft", scope: "order", limit: 2 });
      const second = await listFacts(tdb.db, reviewer, { reviewable: true, status: "draft", scope: "order", limit: 2, cursor: first.nextCursor! });
      expect([...first.facts, ...second.facts].map((f) => f.name)).toEqual(names);
      const queue = await reviewQueue(tdb.db, reviewer, { limit: 10, similar: false });
      expect(queue.items.map((d) => d.name).filter((n) => n.startsWith("order-"))).toEqual(names);
    });

    it("refuses a forged cursor and a deprecated status in the review queue (stale confirmed facts belong there)", async () => {
      expect((await domainError(listFacts(tdb.db, writer, { cursor: "bm90LWEtY3Vyc29y" }))).message).toContain("cursor is not valid");
      expect((await domainError(listFacts(tdb.db, writer, { reviewable: true, status: "deprecated" }))).message).toContain("reviewable");
    });
  });

});
