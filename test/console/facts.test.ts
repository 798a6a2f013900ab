// Facts pages: search and listing with the tools' own scope filter, one fact
// with its history, and review actions on it.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addAgent, type TestAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callerOf, type ConsoleApp, draft, postForm, signIn, startConsoleApp, type SignedIn } from "./support.js";

describe("console facts pages", () => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let alice: TestAgent;
  let writer: TestAgent;
  let who: SignedIn;

  beforeAll(async () => {
    t = await createTestDatabase("postgres");
    app = await startConsoleApp(t.db);
    alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared", "blog"] });
    writer = await addAgent(t.db, "writer", { scopes: ["shared", "blog", "secret"] });
    const w = await callerOf(t.db, writer.token);
    await draft(t.db, w, "qiita-tag-limit", "blog", "Qiita の記事にはタグを5個までしか付けられない。");
    await draft(t.db, w, "secret-launch-date", "secret", "Launch is on the 3rd. Qiita knows nothing.");
    for (let i = 0; i < 55; i++) await draft(t.db, w, `bulk-fact-${i}`, "shared");
    who = await signIn(app.base, alice.token);
  });
  afterAll(async () => {
    await app?.close();
  });

  const get = (path: string) => request(app.base).get(path).set("Cookie", who.cookie);

  it("searches with recall (Japanese included) and never shows facts of unreadable scopes", async () => {
    const ja = await get(`/console/facts?q=${encodeURIComponent("タグ")}`);
    expect(ja.status).toBe(200);
    expect(ja.text).toContain("qiita-tag-limit");
    const both = await get("/console/facts?q=qiita");
    expect(both.text).toContain("qiita-tag-limit");
    expect(both.text).not.toContain("secret-launch-date");
    expect(both.text).toMatch(/1 fact matches/);
  });

  it("lists with filters and keyset pages, in readable scopes only", async () => {
    const first = await get("/console/facts?scope=shared&status=draft&type=project&author=writer");
    expect(first.status).toBe(200);
    expect((first.text.match(/>bulk-fact-\d+<\/a>/g) ?? []).length).toBe(50);
    const next = /href="(\/console\/facts\?[^"]*cursor=[^"]*)"/.exec(first.text)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toBeDefined();
    const second = await get(next!);
    expect((second.text.match(/>bulk-fact-\d+<\/a>/g) ?? []).length).toBe(5);
    const all = await get("/console/facts");
    expect(all.text).not.toContain("secret-launch-date");
    const forbidden = await get("/console/facts?scope=secret");
    expect(forbidden.status).toBe(403);
    expect(forbidden.text).not.toContain("secret-launch-date");
  });

  it("shows the time the list is sorted by: the last change, a review included", async () => {
    // New-user trial: the list is in order of the last change (change_seq), but the
    // column showed the version's time, so "62 days ago" sat above "7 min ago".
    const w = await callerOf(t.db, writer.token);
    await draft(t.db, w, "old-runbook", "shared");
    await t.db.query("update facts set updated_at = now() - interval '62 days' where name = 'old-runbook'");
    await draft(t.db, w, "fresh-note", "shared");
    const confirmed = await postForm(app.base, who, "/console/facts/shared/old-runbook/promote", { version: "1", to: "confirmed", reason: "Still true." });
    expect(confirmed.status).toBe(303);
    const page = await get("/console/facts?scope=shared");
    const rows = [...page.text.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim());
    expect(page.text).toContain('<th scope="col">Last change</th>');
    expect(page.text).toContain("Most recently changed first");
    expect(rows[1]).toMatch(/^old-runbook shared project confirmed writer \d+ s ago/);
    expect(rows[2]).toMatch(/^fresh-note shared project draft writer \d+ s ago/);
    expect(page.text).not.toContain("62 days ago");
  });

  it("answers an unreadable fact exactly like a missing one", async () => {
    const hidden = await get("/console/facts/secret/secret-launch-date");
    const missing = await get("/console/facts/secret/no-such-fact");
    expect(hidden.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(hidden.text.replaceAll("secret-launch-date", "X")).toBe(missing.text.replaceAll("no-such-fact", "X"));
    // Said for a person: no tool names, and no "No facts match." under it.
    expect(missing.text).toContain("No fact named &quot;no-such-fact&quot; in scope &quot;secret&quot; that you can read. Names are exact: search the facts by keyword above.");
    expect(missing.text).not.toContain("memory_recall");
    expect(missing.text).not.toContain("No facts match.");
  });

  it("shows a fact with every version and event, and deprecates it with a reason recorded as the human's", async () => {
    const page = await get("/console/facts/blog/qiita-tag-limit");
    expect(page.status).toBe(200);
    expect(page.text).toContain("5個まで");
    expect(page.text).toContain('data-event="created"');
    const refused = await postForm(app.base, who, "/console/facts/blog/qiita-tag-limit/promote", { version: "1", to: "deprecated", reason: "" });
    expect(refused.status).toBe(400);
    const done = await postForm(app.base, who, "/console/facts/blog/qiita-tag-limit/promote", { version: "1", to: "deprecated", reason: "Qiita raised the limit to 10." });
    expect(done.status).toBe(303);
    const after = await get(done.headers.location!);
    expect(after.text).toContain('data-event="deprecated"');
    expect(after.text).toContain("Qiita raised the limit to 10.");
    expect(after.text).toMatch(/<td data-label="Who">alice<\/td>/);
    const again = await postForm(app.base, who, "/console/facts/blog/qiita-tag-limit/promote", { version: "1", to: "deprecated", reason: "again" });
    expect(again.status).toBe(409);
  });
});
