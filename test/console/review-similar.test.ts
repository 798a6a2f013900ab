// The review queue shows each draft's similar facts, the warning memory_store
// gave its author (new-user trial: a reviewer confirmed a word-for-word copy of
// a confirmed fact with one keystroke, and recall then returned both). Only
// facts the reviewer may read are listed, as for the author.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promoteFact } from "../../src/facts/review/promote.js";
import { storeFact } from "../../src/facts/lifecycle/store.js";
import { addAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callerOf, type ConsoleApp, signIn, startConsoleApp } from "./support.js";

describe.each(["postgres", "pglite"] as const)("review queue: similar facts (%s)", (backend) => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let reviewerToken: string;
  let outsiderToken: string;

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    app = await startConsoleApp(t.db);
    const author = await callerOf(t.db, (await addAgent(t.db, "ci-bot", { scopes: ["shared", "ops"] })).token);
    const root = await callerOf(t.db, (await addAgent(t.db, "root", { kind: "human", scopes: ["*"] })).token);
    reviewerToken = (await addAgent(t.db, "rita", { kind: "human", scopes: ["shared", "ops"] })).token;
    outsiderToken = (await addAgent(t.db, "otto", { kind: "human", scopes: ["shared"] })).token;
    const limits = { bodyMaxChars: 16_000 };
    await storeFact(t.db, author, { name: "flaky-tests-retry", scope: "ops", type: "project", description: "Retry flaky end-to-end tests once before failing the build", body: "Why: cold caches. How: one retry." }, limits);
    await promoteFact(t.db, root, { name: "flaky-tests-retry", scope: "ops", to: "confirmed", reason: "checked the CI config" });
    await storeFact(t.db, author, { name: "flaky-tests-retry-2", scope: "shared", type: "project", description: "Retry flaky end-to-end tests once before failing the build", body: "Why: cold caches." }, limits);
    await storeFact(t.db, author, { name: "api-deploy-window", scope: "shared", type: "project", description: "Deploy the API only between 9 and 17", body: "Why: on-call hours." }, limits);
    // Two near-duplicate drafts; a reviewer then withdraws one as a duplicate of the other.
    await storeFact(t.db, author, { name: "backup-window-utc", scope: "shared", type: "project", description: "Nightly database backups run at 02:00 UTC", body: "Why: lowest traffic." }, limits);
    await storeFact(t.db, author, { name: "backup-window-utc-2", scope: "shared", type: "project", description: "Nightly database backups run at 02:00 UTC", body: "Why: lowest traffic at night." }, limits);
    await promoteFact(t.db, root, { name: "backup-window-utc-2", scope: "shared", to: "deprecated", reason: "duplicate of backup-window-utc" });
  });
  afterAll(async () => {
    await app?.close();
  });

  const queueOf = async (token: string) => {
    const who = await signIn(app.base, token);
    return (await request(app.base).get("/console").set("Cookie", who.cookie)).text;
  };
  const card = (html: string, name: string) => new RegExp(`<article[^>]*id="review-shared-${name}"[\\s\\S]*?</article>`).exec(html)?.[0] ?? "";

  it("lists the confirmed look-alike on the draft's card, with a link and what to do", async () => {
    const html = await queueOf(reviewerToken);
    const copy = card(html, "flaky-tests-retry-2");
    expect(copy).toContain("Similar facts exist");
    expect(copy).toContain('href="/console/facts/ops/flaky-tests-retry"');
    expect(copy).toContain("(confirmed, scope ops, v1)");
    expect(copy).toContain("deprecate it with the reason &quot;duplicate of flaky-tests-retry&quot;");
    // Not a claim about what the author saw: an older fact's author got no warning, and updates never warn.
    expect(copy).not.toContain("the author was warned");
    // A draft like nothing else has no such note.
    expect(card(html, "api-deploy-window")).not.toContain("Similar facts exist");
  });

  it("never advises withdrawing a fact as a duplicate of one already withdrawn", async () => {
    // New-user trial: after deprecating one of two look-alike drafts, the other's card still
    // said "deprecate it as duplicate of <the deprecated one>"; following both cards withdrew both.
    const survivor = card(await queueOf(reviewerToken), "backup-window-utc");
    expect(survivor).toContain('href="/console/facts/shared/backup-window-utc-2"');
    expect(survivor).toContain("already withdrawn");
    expect(survivor).not.toContain("duplicate of backup-window-utc-2");
    expect(survivor).not.toMatch(/deprecate it with the reason/);
  });

  it("never names a fact the reviewer cannot read", async () => {
    const html = await queueOf(outsiderToken);
    expect(card(html, "flaky-tests-retry-2")).toContain("Retry flaky end-to-end tests");
    expect(card(html, "flaky-tests-retry-2")).not.toContain("Similar facts exist");
    expect(html).not.toContain("/console/facts/ops/");
  });
});
