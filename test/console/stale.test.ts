// Stale facts in the console's review queue, over real HTTP on both backends:
// a confirmed fact nobody has reviewed for STALE_AFTER_DAYS is listed after the
// drafts, marked "stale — last reviewed N days ago", to the people who may
// confirm it again (not its author, only in scopes they may write); Re-confirm
// goes through memory_promote's code path and records a confirmed → confirmed
// review event; Deprecate needs a reason as always.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.js";
import { getFact } from "../../src/facts/lifecycle/get.js";
import * as sql from "../../src/facts/sql.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callerOf, type ConsoleApp, draft, postForm, signIn, startConsoleApp } from "./support.js";

const DAY_MS = 86_400_000;

describe.each(["postgres", "pglite"] as const)("console stale facts (%s)", (backend) => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let alice: TestAgent; // human, writes shared + blog
  let carol: TestAgent; // human, writes blog; author of one stale fact
  let root: TestAgent; // human, every scope; the original reviewer
  let rootCaller: Caller;

  /** Confirms a draft as root `days` ago, with memory_promote's statement (as test/facts/stale.test.ts does). */
  async function confirmedDaysAgo(name: string, scope: string, days: number): Promise<void> {
    const id = (await t.db.query<{ id: number }>("select id from facts where name = $1 and scope = $2", [name, scope])).rows[0]!.id;
    await t.db.query(sql.PROMOTE_FACT, [id, "confirmed", rootCaller.agentId, "checked the runbook", "draft", new Date(Date.now() - days * DAY_MS)]);
  }

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    app = await startConsoleApp(t.db);
    alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared", "blog"] });
    carol = await addAgent(t.db, "carol", { kind: "human", scopes: ["blog"] });
    root = await addAgent(t.db, "root", { kind: "human", scopes: ["*"] });
    rootCaller = await callerOf(t.db, root.token);
    const writer = await callerOf(t.db, (await addAgent(t.db, "writer", { scopes: ["shared", "blog", "secret"] })).token);
    await draft(t.db, writer, "old-deploy-rule", "blog", "Deploy after the migrations, never before.");
    await draft(t.db, writer, "old-tag-rule", "blog", "Five tags at most.");
    await draft(t.db, writer, "old-secret-rule", "secret");
    await draft(t.db, writer, "fresh-rule", "blog");
    await draft(t.db, await callerOf(t.db, carol.token), "carol-old-rule", "blog");
    for (const [name, scope] of [["old-deploy-rule", "blog"], ["old-tag-rule", "blog"], ["old-secret-rule", "secret"], ["carol-old-rule", "blog"]] as const) {
      await confirmedDaysAgo(name, scope, 240);
    }
    await confirmedDaysAgo("fresh-rule", "blog", 3);
  });
  afterAll(async () => {
    await app?.close();
  });

  const queueOf = async (who: { cookie: string }, base = app.base) => (await request(base).get("/console").set("Cookie", who.cookie)).text;
  const staleNames = (html: string) => [...html.matchAll(/<article[^>]*id="stale-[a-z0-9_-]+?-([a-z0-9-]+)"[^>]*data-stale/g)].map((m) => m[1]).sort();

  it("lists stale facts after the drafts, marked with their age, in writable scopes only, never to their author", async () => {
    const page = await queueOf(await signIn(app.base, alice.token));
    expect(staleNames(page)).toEqual(["carol-old-rule", "old-deploy-rule", "old-tag-rule"]);
    expect(page).toContain("stale — last reviewed 240 days ago");
    expect(page).toMatch(/data-stale-count[^>]*>3</);
    expect(page).toMatch(/data-count[^>]*>3</);
    expect(page).not.toContain("old-secret-rule");
    expect(page).not.toContain("fresh-rule");
    expect(page).toContain(">Re-confirm<");
    // The author sees everyone's stale facts but her own.
    expect(staleNames(await queueOf(await signIn(app.base, carol.token)))).toEqual(["old-deploy-rule", "old-tag-rule"]);
    expect(staleNames(await queueOf(await signIn(app.base, root.token)))).toEqual(["carol-old-rule", "old-deploy-rule", "old-secret-rule", "old-tag-rule"]);
  });

  it("follows STALE_AFTER_DAYS", async () => {
    const strict = await startConsoleApp(t.db, { STALE_AFTER_DAYS: "2" });
    try {
      expect(staleNames(await queueOf(await signIn(strict.base, alice.token), strict.base))).toContain("fresh-rule");
    } finally {
      await strict.close();
    }
  });

  it("re-confirms as the signed-in human: a confirmed → confirmed review event, and the fact leaves the queue", async () => {
    const who = await signIn(app.base, alice.token);
    const done = await postForm(app.base, who, "/console/review", { name: "old-deploy-rule", scope: "blog", version: "1", to: "confirmed", reason: "" });
    expect(done.status).toBe(303);
    expect(done.headers.location).toContain("done=confirmed");
    const fact = await getFact(t.db, rootCaller, { name: "old-deploy-rule", scope: "blog" });
    expect(fact).toMatchObject({ status: "confirmed", statusBy: "alice" });
    expect(Date.now() - Date.parse(fact.statusAt!)).toBeLessThan(DAY_MS);
    expect(fact.events.at(-1)).toMatchObject({ kind: "confirmed", actor: "alice", from: "confirmed", to: "confirmed", version: 1, reason: "Checked version 1 in the review console." });
    expect(staleNames(await queueOf(who))).toEqual(["carol-old-rule", "old-tag-rule"]);
    // Now fresh again: a second re-confirmation is refused, and nothing is recorded.
    const again = await postForm(app.base, who, "/console/review", { name: "old-deploy-rule", scope: "blog", version: "1", to: "confirmed", reason: "" });
    expect(again.status).toBe(409);
    expect((await getFact(t.db, rootCaller, { name: "old-deploy-rule", scope: "blog" })).events.length).toBe(fact.events.length);
  });

  it("refuses the author's re-confirmation and a fresh fact's, and answers an unreadable scope as missing", async () => {
    const self = await postForm(app.base, await signIn(app.base, carol.token), "/console/review", { name: "carol-old-rule", scope: "blog", version: "1", to: "confirmed", reason: "still true" });
    expect(self.status).toBe(403);
    expect(self.text).toContain("you may not confirm it");
    const who = await signIn(app.base, alice.token);
    const fresh = await postForm(app.base, who, "/console/review", { name: "fresh-rule", scope: "blog", version: "1", to: "confirmed", reason: "" });
    expect(fresh.status).toBe(409);
    const hidden = await postForm(app.base, who, "/console/review", { name: "old-secret-rule", scope: "secret", version: "1", to: "confirmed", reason: "" });
    expect(hidden.status).toBe(404);
    for (const [name, scope] of [["carol-old-rule", "blog"], ["fresh-rule", "blog"], ["old-secret-rule", "secret"]] as const) {
      expect((await getFact(t.db, rootCaller, { name, scope })).statusBy).toBe("root");
    }
  });

  it("deprecates a stale fact only with a reason", async () => {
    const who = await signIn(app.base, alice.token);
    const noReason = await postForm(app.base, who, "/console/review", { name: "old-tag-rule", scope: "blog", version: "1", to: "deprecated", reason: "" });
    expect(noReason.status).toBe(400);
    expect(noReason.text).toContain("Give the reason first");
    const dep = await postForm(app.base, who, "/console/review", { name: "old-tag-rule", scope: "blog", version: "1", to: "deprecated", reason: "Qiita allows 10 tags now." });
    expect(dep.status).toBe(303);
    const fact = await getFact(t.db, rootCaller, { name: "old-tag-rule", scope: "blog" });
    expect(fact.events.at(-1)).toMatchObject({ kind: "deprecated", actor: "alice", from: "confirmed", reason: "Qiita allows 10 tags now." });
    expect(staleNames(await queueOf(who))).toEqual(["carol-old-rule"]);
  });
});
