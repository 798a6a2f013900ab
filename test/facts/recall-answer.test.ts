// memory_recall's answer through a real MCP client, on both backends: lean
// (issue 15) but complete. Every hit still says, in the text and in the
// structured content (the only part some clients show their model), its
// status, who wrote it, who confirmed or withdrew it, why it was withdrawn,
// and why it matched; what every hit shares is said once in the text.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { getFact } from "../../src/facts/lifecycle/get.js";
import { promoteFact } from "../../src/facts/review/promote.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callOk, connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";
import { addCaller, fact, store } from "./helpers.js";

interface Hit {
  name: string;
  scope: string;
  type: string;
  status: string;
  author: string;
  version: number;
  updatedOn: string;
  matches: Array<{ keyword: string; in: string; how: string }>;
  statusBy?: string;
  statusReason?: string;
}

const DRAFT_KEYS = ["author", "body", "description", "matches", "name", "scope", "status", "type", "updatedOn", "version"];

describe.each(BACKENDS)("memory_recall's answer on %s", (backend) => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let reader: Client;
  let today: string;
  let reviewed: string;

  async function recall(keywords: string[]) {
    const r = (await reader.callTool({ name: "memory_recall", arguments: { keywords } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    return { text: textOf(r), hits: (r.structuredContent as { hits: Hit[] }).hits };
  }

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    service = await startInProcessService(tdb.db);
    const writer = await addCaller(tdb.db, "writer", { scopes: ["shared", "ops"] });
    const reviewer = await addCaller(tdb.db, "reviewer", { kind: "human", scopes: ["*"] });
    const r = await addCaller(tdb.db, "reader", { scopes: ["shared", "ops"] });
    reader = await connectClient(service, r.token, "reader");
    for (const name of ["wombat-draft", "wombat-confirmed", "wombat-withdrawn"]) {
      await store(tdb.db, writer, fact(name, { description: `The wombat rule, ${name}`, body: "Why: an outage. How: follow the wombat rule." }));
    }
    await promoteFact(tdb.db, reviewer, { name: "wombat-confirmed", to: "confirmed", reason: "checked the runbook" });
    await promoteFact(tdb.db, reviewer, { name: "wombat-withdrawn", to: "deprecated", reason: "the wombat rule was replaced" });
    await store(tdb.db, writer, fact("numbat-original", { description: "The numbat rule for the ops queue", body: "Why: an outage. How: follow the numbat rule." }));
    await store(tdb.db, writer, fact("numbat-copy", { description: "The numbat rule for the ops queue (copy)", body: "Why: an outage. How: follow the numbat rule." }));
    await promoteFact(tdb.db, reviewer, { name: "numbat-copy", to: "deprecated", reason: "duplicate of numbat-original" });
    // "duplicate of" followed by words, not a fact's name: an ordinary withdrawal.
    await store(tdb.db, writer, fact("numbat-checklist", { description: "The numbat checklist", body: "Why: an outage." }));
    await promoteFact(tdb.db, reviewer, { name: "numbat-checklist", to: "deprecated", reason: "Duplicate of the deploy checklist" });
    // Confirmed, then updated: the current version is a draft again.
    const v1 = await store(tdb.db, writer, fact("quokka-rule", { description: "The quokka rule for deploys", body: "Why: v1." }));
    await promoteFact(tdb.db, reviewer, { name: "quokka-rule", to: "confirmed", reason: "checked" });
    await store(tdb.db, writer, fact("quokka-rule", { version: v1.fact.version, description: "The quokka rule for deploys", body: "Why: v2." }));
    // Confirmed, withdrawn, then rewritten: nothing confirmed stands behind the draft.
    const w1 = await store(tdb.db, writer, fact("quokka-old", { description: "The old quokka rule", body: "Why: w1." }));
    await promoteFact(tdb.db, reviewer, { name: "quokka-old", to: "confirmed", reason: "checked" });
    await promoteFact(tdb.db, reviewer, { name: "quokka-old", to: "deprecated", reason: "replaced" });
    await store(tdb.db, writer, fact("quokka-old", { version: w1.fact.version, description: "The old quokka rule", body: "Why: w2." }));
    await store(tdb.db, writer, fact("ops-note", { scope: "ops", type: "reference", description: "Where the ops runbook lives", body: "See the wombat wiki page." }));
    // The day they were stored and reviewed (read back, so a run across midnight UTC still agrees).
    today = (await getFact(tdb.db, writer, { name: "wombat-draft" })).updatedAt.slice(0, 10);
    reviewed = (await getFact(tdb.db, writer, { name: "wombat-withdrawn" })).statusAt!.slice(0, 10);
  });

  it("says once what all hits share, and keeps each hit's status, author, review and withdrawal reason", async () => {
    const { text, hits } = await recall(["wombat rule"]);
    expect(hits.map((h) => h.name).sort()).toEqual(["wombat-confirmed", "wombat-draft", "wombat-withdrawn"]);
    expect(text).toContain(`All are project facts in scope shared. Each matched "wombat rule" as written in name/description.`);
    expect(text).not.toContain("matched:");
    expect(text).not.toContain("scope shared,");
    // Each status present is explained once; each hit states its own.
    expect(text).toContain("Confirmed: reviewed by someone other than its author. Draft: not reviewed yet (unverified). Deprecated: withdrawn");
    expect(text).toContain(`[CONFIRMED] wombat-confirmed (v1 by writer on ${today}; confirmed by reviewer on ${reviewed})`);
    expect(text).toContain(`[DRAFT] wombat-draft (v1 by writer on ${today})`);
    expect(text).toContain(`[DEPRECATED] wombat-withdrawn (v1 by writer on ${today}; deprecated by reviewer on ${reviewed})`);
    expect(text).toContain("WITHDRAWN — do not apply. Reason: the wombat rule was replaced");

    // The structured hits keep everything per hit (a program reads each on its own).
    const byName = new Map(hits.map((h) => [h.name, h]));
    expect(Object.keys(byName.get("wombat-draft")!).sort()).toEqual(DRAFT_KEYS);
    expect(Object.keys(byName.get("wombat-confirmed")!).sort()).toEqual([...DRAFT_KEYS, "statusBy"].sort());
    expect(Object.keys(byName.get("wombat-withdrawn")!).sort()).toEqual([...DRAFT_KEYS, "statusBy", "statusReason"].sort());
    expect(byName.get("wombat-withdrawn")).toMatchObject({ status: "deprecated", statusBy: "reviewer", statusReason: "the wombat rule was replaced" });
    for (const h of hits) {
      expect(h).toMatchObject({ scope: "shared", type: "project", author: "writer", version: 1, updatedOn: today });
      expect(h.matches).toEqual([{ keyword: "wombat rule", in: "summary", how: "exact" }]);
    }
    // The exact time stays in memory_get.
    const full = await callOk<{ fact: { updatedAt: string } }>(reader, "memory_get", { name: "wombat-confirmed" });
    expect(full.fact.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    expect(byName.get("wombat-confirmed")!.updatedOn).toBe(full.fact.updatedAt.slice(0, 10));
  });

  it("states scope, type and why it matched on each hit when the hits differ", async () => {
    const { text, hits } = await recall(["wombat"]);
    expect(hits).toHaveLength(4);
    expect(text).not.toContain("All are");
    expect(text).not.toContain("Each matched");
    expect(text).toContain(`[DRAFT] ops-note (scope ops, reference, v1 by writer on ${today})`);
    expect(text).toContain(`[DRAFT] wombat-draft (scope shared, project, v1 by writer on ${today})`);
    expect(text.match(/\n {2}matched: /g)).toHaveLength(4);
    expect(text).toContain('matched: "wombat" as written in body');
    expect(hits.find((h) => h.name === "ops-note")!.matches).toEqual([{ keyword: "wombat", in: "body", how: "exact" }]);
  });

  it("points a copy withdrawn as a duplicate at the fact to read instead, without calling its content wrong", async () => {
    const { text } = await recall(["numbat"]);
    expect(text).toMatch(/^3 facts match "numbat"\./);
    expect(text).toContain("WITHDRAWN as a duplicate: read numbat-original instead. Reason: duplicate of numbat-original");
    expect(text).toContain("WITHDRAWN — do not apply. Reason: Duplicate of the deploy checklist");
    expect(text).not.toContain("read the instead");
  });

  it("says '1 fact matches' and echoes a quoted phrase as it was written", async () => {
    const { text } = await recall(['"numbat rule for the ops queue (copy)"']);
    expect(text).toMatch(/^1 fact matches "numbat rule for the ops queue \(copy\)"\./);
    expect(text).not.toContain('\\"');
  });

  it("says when a draft's earlier version had been confirmed, and not when it was withdrawn since", async () => {
    const { text, hits } = await recall(["quokka"]);
    const byName = new Map(hits.map((h) => [h.name, h as Hit & { confirmedBefore?: unknown }]));
    expect(byName.get("quokka-rule")).toMatchObject({ status: "draft", version: 2, confirmedBefore: { version: 1, by: "reviewer", on: reviewed } });
    expect(text).toContain(`[DRAFT] quokka-rule (v2 by writer on ${today}; v1 was confirmed by reviewer on ${reviewed}, memory_get shows it)`);
    expect(byName.get("quokka-old")!.confirmedBefore).toBeUndefined();
    expect(text).toContain(`[DRAFT] quokka-old (v2 by writer on ${today})`);
  });

  it("explains only the statuses among the hits", async () => {
    const { text } = await recall(["ops runbook"]);
    expect(text).toContain("Draft: not reviewed yet (unverified).");
    expect(text).not.toContain("Confirmed:");
    expect(text).not.toContain("Deprecated:");
    // One hit: nothing is hoisted, it reads as before.
    expect(text).toContain(`[DRAFT] ops-note (scope ops, reference, v1 by writer on ${today})`);
    expect(text).toContain('matched: "ops runbook" as written in name/description');
    // Keywords that matched alike share one phrase; the structured hit lists each.
    const two = await recall(["ops", "runbook"]);
    expect(two.text).toContain('matched: "ops", "runbook" as written in name/description');
    expect(two.hits[0]!.matches).toEqual([
      { keyword: "ops", in: "summary", how: "exact" },
      { keyword: "runbook", in: "summary", how: "exact" },
    ]);
  });
});
