// The console's Health page over real HTTP on both backends: the figures of
// /metrics for the scopes the person may read (never another scope's), the
// backlog chart with today's sample, and reviews per agent.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleHealthToday } from "../../src/facts/review/health.js";
import { promoteFact } from "../../src/facts/review/promote.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callerOf, type ConsoleApp, draft, signIn, startConsoleApp } from "./support.js";

describe.each(["postgres", "pglite"] as const)("console Health page (%s)", (backend) => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let alice: TestAgent; // human, writes shared

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    app = await startConsoleApp(t.db);
    alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared"] });
    const writer = await callerOf(t.db, (await addAgent(t.db, "writer", { scopes: ["shared", "secret-team"] })).token);
    for (const name of ["one", "two", "three"]) await draft(t.db, writer, `fact-${name}`, "shared");
    await draft(t.db, writer, "hidden-plan", "secret-team");
    await promoteFact(t.db, await callerOf(t.db, alice.token), { name: "fact-one", to: "confirmed", reason: "checked" });
    await promoteFact(t.db, await callerOf(t.db, alice.token), { name: "fact-two", to: "deprecated", reason: "wrong" });
    // What a running service writes once a day (the page itself writes nothing).
    await sampleHealthToday(t.db, 180);
  });
  afterAll(async () => {
    await app?.close();
  });

  it("shows the readable scopes' backlog, today's sample and reviews per agent", async () => {
    const who = await signIn(app.base, alice.token);
    const page = await request(app.base).get("/console/health").set("Cookie", who.cookie);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<td>shared<\/td><td>1<\/td>/);
    expect(page.text).not.toContain("secret-team");
    // The database's day, not this process's: the sample is keyed by current_date.
    const today = (await t.db.query<{ today: string }>("select to_char(current_date, 'YYYY-MM-DD') as today")).rows[0]!.today;
    expect(page.text).toContain(`<title>${today}: 1 drafts waiting, 0 stale facts</title>`);
    expect(page.text).toContain("1 confirmed, 1 deprecated");
    expect(page.text).toMatch(/aria-current="page"[^>]*>Health|href="\/console\/health" aria-current="page"/);
  });

  it("draws today's bar from the reading in the table, not from the sample written when the day began", async () => {
    const writer = await callerOf(t.db, (await addAgent(t.db, "later-writer", { scopes: ["shared"] })).token);
    await draft(t.db, writer, "fact-four", "shared");
    const who = await signIn(app.base, alice.token);
    const page = await request(app.base).get("/console/health").set("Cookie", who.cookie);
    expect(page.text).toMatch(/<td>shared<\/td><td>2<\/td>/);
    const today = (await t.db.query<{ today: string }>("select to_char(current_date, 'YYYY-MM-DD') as today")).rows[0]!.today;
    expect(page.text).toContain(`<title>${today}: 2 drafts waiting, 0 stale facts</title>`);
  });
});
