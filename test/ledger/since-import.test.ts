// ledger_list `since` after an import of history (new-user trial): imported
// events keep their own, older times but come after newer events in seq, and
// the scan used to start at the first event of the hour before `since` in time
// order, which skipped every event written before the import. It now starts at
// the first event *recorded* in that hour (am_ledger_page): on both backends, from
// an import through the real importer, and for a ledger that was already out of
// order when the migration ran.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { claimLedger } from "../../src/ledger/store.js";
import { listLedger } from "../../src/ledger/list.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

import { importFrom } from "../snapshots/helpers.js";

const DAY = 24 * 60 * 60 * 1000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString();

describe.each(BACKENDS)("ledger_list since, after importing older events, on %s", (backend) => {
  let tdb: TestDatabase;
  let work: string;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const writer = await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["shared"] });
    await createAgent(tdb.db, { name: "old-bot", kind: "agent", writeScopes: ["shared"] });
    // Three events written today, then two of 30 and 29 days ago imported after them.
    for (let i = 0; i < 3; i++) {
      await claimLedger(tdb.db, { agentId: writer.id, name: "writer" }, { action: "publish_post", target: `today-${i}` });
    }
    work = await mkdtemp(join(tmpdir(), "am-since-import-"));
    const lines = [30, 29].map((n) => JSON.stringify({ action: "publish_post", target: `old-${n}`, evidence: `https://blog.example/old-${n}`, actor: "old-bot", at: daysAgo(n) }));
    await writeFile(join(work, "ledger.jsonl"), `${lines.join("\n")}\n`);
    const report = await importFrom(tdb.db, work);
    expect(report.ledger).toMatchObject({ appended: 2, invalid: [] });
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  const targets = async (since: string, scanMax = 5_000) => (await listLedger(tdb.db, { since, limit: 200 }, { scanMax })).events.map((e) => e.target);

  it("finds the events written before the import as well as the imported ones", async () => {
    expect(await targets(daysAgo(60))).toEqual(["old-29", "old-30", "today-2", "today-1", "today-0"]);
    expect(await targets(daysAgo(29.5))).toEqual(["old-29", "today-2", "today-1", "today-0"]);
    expect(await targets(daysAgo(1))).toEqual(["today-2", "today-1", "today-0"]);
    expect(await targets(new Date(Date.now() + 2 * 60 * 60 * 1000).toISOString())).toEqual([]);
  });

  it("gives the same events a bound at a time", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const page = await listLedger(tdb.db, { since: daysAgo(29.5), limit: 1, cursor }, { scanMax: 1 });
      seen.push(...page.events.map((e) => e.target));
      cursor = page.nextCursor ?? undefined;
    } while (cursor && ++calls < 50);
    expect(seen).toEqual(["old-29", "today-2", "today-1", "today-0"]);
  });

  it("refuses to import an event dated in the future, naming the line, and writes nothing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "am-since-future-"));
    try {
      const future = new Date(Date.now() + 3 * DAY).toISOString();
      await writeFile(join(dir, "ledger.jsonl"), `${JSON.stringify({ action: "publish_post", target: "tomorrow", evidence: "https://blog.example/t", actor: "old-bot", at: future })}\n`);
      const report = await importFrom(tdb.db, dir);
      expect(report.ledger?.appended).toBe(0);
      expect(report.ledger?.invalid).toEqual([{ line: 1, reason: expect.stringContaining(`"at" ${future} is in the future`) }]);
      expect(await targets(daysAgo(60))).not.toContain("tomorrow");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
