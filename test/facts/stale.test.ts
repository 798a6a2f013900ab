// Stale facts through a real MCP client over HTTP, on both backends: a
// confirmed fact nobody has reviewed for STALE_AFTER_DAYS is marked in recall,
// returns to the review queue, and someone other than its author confirms it
// again (a review event that moves status_at forward). A fresh confirmation
// still cannot be repeated. The review survives export and import.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { listFacts } from "../../src/facts/lifecycle/list.js";
import { getFact } from "../../src/facts/lifecycle/get.js";
import * as sql from "../../src/facts/sql.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { tempDirForFile } from "../support/file-teardown.js";
import { callError, callOk, connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";
import { addTeam, exportTo, importFrom } from "../snapshots/helpers.js";
import { addCaller, fact, store } from "./helpers.js";

const DAY_MS = 86_400_000;

interface Hit {
  name: string;
  status: string;
  stale?: true;
  statusAt?: string;
}

describe.each(BACKENDS)("stale facts on %s", (backend) => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let author: Client;
  let reviewer: Client;
  let work: string;

  /** Confirms a draft as the given agent `days` ago, with the statement memory_promote uses (an import passes old times the same way). */
  async function confirmedDaysAgo(name: string, reviewerId: number, days: number) {
    const id = (await tdb.db.query<{ id: number }>("select id from facts where name = $1", [name])).rows[0]!.id;
    await tdb.db.query(sql.PROMOTE_FACT, [id, "confirmed", reviewerId, "checked the runbook", "draft", new Date(Date.now() - days * DAY_MS)]);
  }

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    work = await tempDirForFile("am-stale-");
    service = await startInProcessService(tdb.db);
    const team = await addTeam(tdb.db);
    author = await connectClient(service, (team.deployer as typeof team.deployer & { token: string }).token, "deployer");
    reviewer = await connectClient(service, (team.writer as typeof team.writer & { token: string }).token, "blog-writer");
    for (const name of ["old-rule", "fresh-rule"]) {
      await store(tdb.db, team.deployer, fact(name, { description: `Deploy rule ${name}`, body: "Why: an outage. How: follow the deploy rule." }));
    }
    await confirmedDaysAgo("old-rule", team.reviewer.agentId, 240);
    await confirmedDaysAgo("fresh-rule", team.reviewer.agentId, 3);
  });
  it("recall marks a confirmed fact not reviewed for longer than STALE_AFTER_DAYS, still ranked as confirmed", async () => {
    const r = (await reviewer.callTool({ name: "memory_recall", arguments: { keywords: ["deploy rule"] } })) as CallToolResult;
    const hits = (r.structuredContent as { hits: Hit[] }).hits;
    // Lean answers (issue 15): a recall hit carries stale only when it is true.
    expect(hits.map((h) => [h.name, h.status, h.stale ?? false]).sort()).toEqual([
      ["fresh-rule", "confirmed", false],
      ["old-rule", "confirmed", true],
    ]);
    // The hit leaves the review's exact time to memory_get (lean answers); the text gives its date.
    expect(hits.find((h) => h.name === "old-rule")!.statusAt).toBeUndefined();
    const oldAt = (await callOk<{ fact: { statusAt: string } }>(reviewer, "memory_get", { name: "old-rule" })).fact.statusAt;
    expect(textOf(r)).toContain(`STALE: confirmed ${oldAt.slice(0, 10)}, not reviewed for 240 days.`);
    expect(textOf(r).match(/STALE/g)).toHaveLength(1);
  });

  it("the stale fact is in the review queue of others, not of its author; a fresh one is not", async () => {
    const queue = await callOk<{ facts: Array<{ name: string; stale: boolean }> }>(reviewer, "memory_list", { reviewable: true });
    expect(queue.facts.map((f) => [f.name, f.stale])).toEqual([["old-rule", true]]);
    expect(textOf(await reviewer.callTool({ name: "memory_list", arguments: { reviewable: true } }))).toContain("not reviewed for 240 days");
    expect((await callOk<{ facts: unknown[] }>(author, "memory_list", { reviewable: true })).facts).toEqual([]);
    expect((await callOk<{ facts: unknown[] }>(reviewer, "memory_list", { reviewable: true, status: "draft" })).facts).toEqual([]);
  });

  it("STALE_AFTER_DAYS decides: with 300 days the same fact is not stale", async () => {
    const caller = await addCaller(tdb.db, "late-reviewer", { scopes: ["shared"] });
    expect((await listFacts(tdb.db, caller, { reviewable: true }, { staleAfterDays: 300 })).facts).toEqual([]);
    expect((await listFacts(tdb.db, caller, { reviewable: true }, { staleAfterDays: 30 })).facts.map((f) => f.name)).toEqual(["old-rule"]);
  });

  it("the author cannot re-confirm; someone else can, which records a review and refreshes status_at", async () => {
    expect(await callError(author, "memory_promote", { name: "old-rule", to: "confirmed", reason: "still true" })).toContain("you may not confirm it");
    const done = await callOk<{ from: string; to: string; fact: { statusAt: string; statusBy: string } }>(reviewer, "memory_promote", {
      name: "old-rule",
      to: "confirmed",
      reason: "re-checked against the current runbook",
    });
    expect(done).toMatchObject({ from: "confirmed", to: "confirmed", fact: { statusBy: "blog-writer" } });
    expect(Date.now() - Date.parse(done.fact.statusAt)).toBeLessThan(60_000);
    const full = await callOk<{ fact: { events: Array<{ kind: string; from: string; to: string; actor: string; reason: string }> } }>(reviewer, "memory_get", { name: "old-rule" });
    expect(full.fact.events.map((e) => [e.kind, e.from ?? null, e.to, e.actor])).toEqual([
      ["created", null, "draft", "deployer"],
      ["confirmed", "draft", "confirmed", "reviewer"],
      ["confirmed", "confirmed", "confirmed", "blog-writer"],
    ]);
    const hits = (await callOk<{ hits: Hit[] }>(reviewer, "memory_recall", { keywords: ["old-rule"] })).hits;
    expect(hits[0]).toMatchObject({ name: "old-rule" });
    expect(hits[0]).not.toHaveProperty("stale");
    expect((await callOk<{ facts: unknown[] }>(reviewer, "memory_list", { reviewable: true })).facts).toEqual([]);
  });

  it("a fresh confirmation cannot be repeated", async () => {
    const text = await callError(reviewer, "memory_promote", { name: "fresh-rule", to: "confirmed", reason: "me too" });
    expect(text).toContain("already confirmed (by reviewer");
    expect(text).toContain("confirmed → confirmed again once nobody has reviewed it for 180 days");
  });

  it("the database refuses a review that goes back in time, and review fields changed on a draft", async () => {
    await expect(tdb.db.query("update facts set status_at = status_at - interval '1 day' where name = 'fresh-rule'")).rejects.toThrow(/reviewed again/);
    await store(tdb.db, await addCaller(tdb.db, "drafter", { scopes: ["shared"] }), fact("plain-draft"));
    await expect(tdb.db.query("update facts set status_reason = 'x' where name = 'plain-draft'")).rejects.toThrow();
  });

  it("export and import keep the re-confirmation", async () => {
    await exportTo(tdb.db, join(work, "tree"));
    const fresh = await createTestDatabase(backend);
    try {
      await addTeam(fresh.db);
      for (const name of ["late-reviewer", "drafter"]) await addCaller(fresh.db, name, { scopes: ["shared"] });
      const report = await importFrom(fresh.db, join(work, "tree"));
      expect(report.facts.invalid, JSON.stringify(report.files)).toBe(0);
      const caller = await addCaller(fresh.db, "checker", { scopes: ["shared"] });
      const f = await getFact(fresh.db, caller, { name: "old-rule" });
      expect(f.events.map((e) => [e.kind, e.from, e.actor])).toEqual([
        ["created", null, "deployer"],
        ["confirmed", "draft", "reviewer"],
        ["confirmed", "confirmed", "blog-writer"],
      ]);
    } finally {
      await fresh.drop();
    }
  });
});

// "Stale" is one rule (am_fact_stale), asked by every surface: at STALE_AFTER_DAYS + ½ day a fact is
// stale everywhere, at STALE_AFTER_DAYS − ½ day nowhere (whole days counted on one side and timestamps
// compared on the other disagreed for up to a day).
describe.each(BACKENDS)("stale at STALE_AFTER_DAYS ± ½ day, on every surface (%s)", (backend) => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let reviewer: Client;
  const metricsToken = "scrape-secret-0123456789abcdef0123456789";

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    service = await startInProcessService(tdb.db, { STALE_AFTER_DAYS: "1", METRICS_TOKEN: metricsToken });
    const team = await addTeam(tdb.db);
    reviewer = await connectClient(service, (team.writer as typeof team.writer & { token: string }).token, "blog-writer");
    for (const [name, days] of [["day-and-a-half", 1.5], ["half-a-day", 0.5]] as const) {
      await store(tdb.db, team.deployer, fact(name, { description: `Boundary rule ${name}`, body: "Why and how of the boundary rule." }));
      const id = (await tdb.db.query<{ id: number }>("select id from facts where name = $1", [name])).rows[0]!.id;
      await tdb.db.query(sql.PROMOTE_FACT, [id, "confirmed", team.reviewer.agentId, "checked", "draft", new Date(Date.now() - days * DAY_MS)]);
    }
  });

  it("recall, memory_list reviewable, memory_review, /metrics and the console's queue agree, and memory_promote allows a new review of the stale one only", async () => {
    const hits = (await callOk<{ hits: Hit[] }>(reviewer, "memory_recall", { keywords: ["boundary rule"] })).hits;
    expect(Object.fromEntries(hits.map((h) => [h.name, h.stale ?? false]))).toEqual({ "day-and-a-half": true, "half-a-day": false });
    const listed = await callOk<{ facts: Array<{ name: string; stale: boolean }> }>(reviewer, "memory_list", { reviewable: true });
    expect(listed.facts.map((f) => [f.name, f.stale])).toEqual([["day-and-a-half", true]]);
    const review = await callOk<{ stale: Array<{ name: string; staleDays: number }> }>(reviewer, "memory_review", {});
    expect(review.stale.map((f) => [f.name, f.staleDays])).toEqual([["day-and-a-half", 1]]);
    const metrics = await (await service.fetch(`${service.url}/metrics`, { headers: { Authorization: `Bearer ${metricsToken}` } })).text();
    expect(metrics).toMatch(/^agent_memory_stale_facts\{scope="shared"\} 1$/m);
    expect(await callError(reviewer, "memory_promote", { name: "half-a-day", to: "confirmed", reason: "checked again" })).toContain("already confirmed");
    expect(await callOk(reviewer, "memory_promote", { name: "day-and-a-half", to: "confirmed", reason: "checked again" })).toMatchObject({ from: "confirmed", to: "confirmed" });
  });
});

