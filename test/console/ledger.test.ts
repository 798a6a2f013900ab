// Ledger pages: open claims, filtered history, verify, export download.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimLedger } from "../../src/ledger/store.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { claimAndRecord } from "../ledger/support.js";
import { callerOf, type ConsoleApp, signIn, startConsoleApp, type SignedIn } from "./support.js";

describe("console ledger pages", () => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let deployer: TestAgent;
  let who: SignedIn;

  beforeAll(async () => {
    t = await createTestDatabase("postgres");
    app = await startConsoleApp(t.db);
    const alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared"] });
    deployer = await addAgent(t.db, "deployer", { scopes: ["shared"] });
    const actor = await callerOf(t.db, deployer.token);
    await claimAndRecord(t.db, actor, { action: "publish_qiita", target: "post-1", evidence: "https://qiita.com/x/items/1", note: "<img src=x onerror=alert(1)>" });
    await claimAndRecord(t.db, actor, { action: "deploy_api", target: "v1.2.0", evidence: "https://ci.example/run/7" });
    await claimLedger(t.db, actor, { action: "deploy_api", target: "v1.3.0", ttlSeconds: 600 });
    who = await signIn(app.base, alice.token);
  });
  afterAll(async () => {
    await app?.close();
  });

  const get = (path: string) => request(app.base).get(path).set("Cookie", who.cookie);

  it("shows open claims with holder and expiry, and the history with filters", async () => {
    const page = await get("/console/ledger");
    expect(page.status).toBe(200);
    expect(page.text).toContain("v1.3.0");
    expect(page.text).toContain("post-1");
    expect(page.text).toContain("&lt;img src=x onerror=alert(1)>");
    const filtered = await get("/console/ledger?action=publish_qiita&kind=executed");
    expect(filtered.text).toContain("post-1");
    expect(filtered.text).not.toContain("v1.2.0");
    const bad = await get("/console/ledger?since=yesterday");
    expect(bad.status).toBe(400);
  });

  it("verifies the chain and reports the first broken link", async () => {
    const ok = await get("/console/ledger/verify");
    expect(ok.text).toContain("Intact: 5 event(s)");
    await t.db.query("alter table ledger_events disable trigger user");
    await t.db.query("update ledger_events set target = 'post-2' where seq = 1");
    await t.db.query("alter table ledger_events enable trigger user");
    const broken = await get("/console/ledger/verify");
    expect(broken.text).toContain("Broken at event #1");
  });

  it("downloads the export as JSON Lines", async () => {
    const res = await get("/console/ledger/export");
    expect(res.status).toBe(200);
    expect(res.headers["content-disposition"]).toContain("ledger.jsonl");
    const lines = res.text.trim().split("\n").map((l) => JSON.parse(l) as { seq: number; action: string });
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it("needs a session for every ledger page", async () => {
    for (const path of ["/console/ledger", "/console/ledger/verify", "/console/ledger/export"]) {
      expect((await request(app.base).get(path)).status).toBe(303);
    }
  });
});
