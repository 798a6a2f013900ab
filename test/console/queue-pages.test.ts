// The console review queue's "Next page of drafts" link, over real HTTP: its
// position is sealed (security audit: in the clear, a page cut at the scan's
// bound pointed at a draft in a scope the reviewer cannot read, and stepping
// through such links counted the hidden drafts), following the links reaches
// every draft the reviewer may handle, and an altered link shows the first page.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addAgent, type TestAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callerOf, type ConsoleApp, signIn, startConsoleApp } from "./support.js";

describe("console review queue pages (postgres)", () => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let alice: TestAgent; // human, writes shared only

  beforeAll(async () => {
    t = await createTestDatabase("postgres");
    app = await startConsoleApp(t.db, {}, (c) => (c.limits.listScanMax = 100));
    alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared"] });
    const writer = await callerOf(t.db, (await addAgent(t.db, "writer", { scopes: ["shared", "secret"] })).token);
    // 250 drafts alice may not read, then 12 she may review.
    await t.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'secret', 'hidden-' || g, 'Hidden ' || g, 'project', 'Why and how.', $1::bigint from generate_series(1, 250) g`,
      [writer.agentId],
    );
    await t.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'shared', 'shown-' || lpad(g::text, 2, '0'), 'Shown ' || g, 'project', 'Why and how.', $1::bigint from generate_series(1, 12) g`,
      [writer.agentId],
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  const draftNames = (html: string) => [...html.matchAll(/<article[^>]*id="review-shared-(shown-\d+)"/g)].map((m) => m[1]!);
  const nextLink = (html: string) => /<a href="\/console\?after=([^"]+)">Next page of drafts<\/a>/.exec(html)?.[1];

  it("links on with a sealed position, reaches every draft once, and opens an altered link at the start", async () => {
    const who = await signIn(app.base, alice.token);
    const seen: string[] = [];
    const links: string[] = [];
    let path = "/console";
    for (let pages = 0; pages < 20; pages++) {
      const html = (await request(app.base).get(path).set("Cookie", who.cookie)).text;
      seen.push(...draftNames(html));
      const next = nextLink(html);
      if (!next) break;
      links.push(decodeURIComponent(next));
      path = `/console?after=${next}`;
    }
    expect(seen.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `shown-${String(i + 1).padStart(2, "0")}`));
    // The bound (100) cut pages inside the hidden drafts: their positions are opaque.
    expect(links.length).toBeGreaterThan(2);
    for (const link of links) expect(link).not.toMatch(/^\d+$/);

    // A position in the clear (the old form) or an altered link: the first page, not an error.
    for (const bad of ["100", `${links[0]!.slice(0, -2)}AA`]) {
      const answer = await request(app.base).get(`/console?after=${encodeURIComponent(bad)}`).set("Cookie", who.cookie);
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain("No more drafts after this point");
    }
  });
});
