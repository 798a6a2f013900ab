// The console reaches the database for its session's agent, as MCP does for a
// token's: it takes its turns from the same per-agent queues (review of the
// per-agent limit: console pages were outside it, so a script holding a session
// cookie could run any number of searches at once). A page is made slow by a
// lock this test holds on the facts table; the assertions are about which
// requests were refused or served while it was held, never about time.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, MCP_HEADERS, type TestAgent, toolCallBody } from "../support/service.js";
import { type ConsoleApp, signIn, startConsoleApp, type SignedIn } from "./support.js";

describe("console pages share the per-agent concurrency limit with MCP", () => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let alice: TestAgent;
  let bob: TestAgent;
  let who: SignedIn;

  beforeAll(async () => {
    t = await createTestDatabase("postgres");
    app = await startConsoleApp(t.db, { MCP_CONCURRENT_PER_AGENT: "1" }, (c) => (c.mcpQueuePerAgent = 0));
    alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared"] });
    bob = await addAgent(t.db, "bob", { scopes: ["shared"] });
    who = await signIn(app.base, alice.token);
  });
  afterAll(async () => {
    await app?.close();
  });

  const mcp = (token: string) =>
    fetch(`${app.base}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}` }, body: JSON.stringify(toolCallBody("whoami", {}, 1)) });

  it("while one of alice's pages waits on the database, her next page and her MCP call are refused; bob is served", async () => {
    const pool = t.openPool(1);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const held = pool.transaction(async (tx) => {
      await tx.query("lock table facts in access exclusive mode");
      locked();
      await released;
    });
    try {
      await isLocked;
      const first = request(app.base).get("/console/facts").set("Cookie", who.cookie).then((r) => r);
      for (let i = 0; i < 2000; i++) {
        const r = await t.db.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
        if (r.rows[0]!.n >= 1) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const page = await request(app.base).get("/console/facts?q=deploy").set("Cookie", who.cookie);
      expect(page.status).toBe(429);
      expect(page.headers["retry-after"]).toBe("1");
      expect(page.text).toContain("Too many requests at once from agent &quot;alice&quot;");
      const hers = await mcp(alice.token);
      expect(hers.status).toBe(429);
      expect(((await hers.json()) as { error: { message: string } }).error.message).toMatch(/agent "alice": 1 run at a time and 0 more may wait/);
      expect((await mcp(bob.token)).status).toBe(200);
      release();
      await held;
      expect((await first).status).toBe(200);
      // Her turn is free again.
      expect((await request(app.base).get("/console/facts").set("Cookie", who.cookie)).status).toBe(200);
    } finally {
      release();
      await held;
      await pool.close();
    }
  });
});
