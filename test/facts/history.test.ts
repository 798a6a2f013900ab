// memory_get is bounded (on both backends): a fact revised 25 times answers with
// its newest 10 versions and their events, says how many older ones it left out,
// and versionsBefore pages back to version 1 with every version and event
// exactly once. Export still writes the whole history.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.js";
import { fullFactText } from "../../src/facts/lifecycle/format.js";
import type { FactEvent, FactVersion } from "../../src/facts/model.js";
import { getFact } from "../../src/facts/lifecycle/get.js";
import { GET_HISTORY_VERSIONS } from "../../src/facts/rules.js";
import { promoteFact } from "../../src/facts/review/promote.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { exportTo, readTree } from "../snapshots/helpers.js";
import { addCaller, domainError, fact, store } from "./helpers.js";

const VERSIONS = 25;
const body = (v: number) => `Version ${v} of the rule, and why it holds. `.padEnd(1000, "-");

describe.each(BACKENDS)("memory_get history on %s", (backend) => {
  let tdb: TestDatabase;
  let writer: Caller;
  let reviewer: Caller;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    writer = await addCaller(tdb.db, "history-writer");
    reviewer = await addCaller(tdb.db, "history-reviewer", { kind: "human", scopes: ["*"] });
    await store(tdb.db, writer, fact("long-history", { body: body(1) }));
    await promoteFact(tdb.db, reviewer, { name: "long-history", to: "confirmed", reason: "checked v1" });
    for (let v = 2; v <= VERSIONS; v++) await store(tdb.db, writer, fact("long-history", { body: body(v), version: v - 1 }));
    await promoteFact(tdb.db, reviewer, { name: "long-history", to: "deprecated", reason: "superseded" });
    await store(tdb.db, writer, fact("short-history", { body: body(1) }));
    await store(tdb.db, writer, fact("short-history", { body: body(2), version: 1 }));
  });

  it("shows the newest versions with their events, says how many are older, and versionsBefore pages back to version 1 exactly once", async () => {
    const first = await getFact(tdb.db, writer, { name: "long-history" });
    expect(first).toMatchObject({ version: VERSIONS, status: "deprecated", body: body(VERSIONS), earlierVersions: VERSIONS - GET_HISTORY_VERSIONS });
    expect(first.versions.map((v) => v.version)).toEqual(Array.from({ length: GET_HISTORY_VERSIONS }, (_, i) => VERSIONS - GET_HISTORY_VERSIONS + 1 + i));
    expect(first.events.map((e) => `${e.kind} v${e.version}`)).toEqual([
      ...first.versions.map((v) => `updated v${v.version}`),
      `deprecated v${VERSIONS}`,
    ]);
    const text = fullFactText(first);
    expect(text).toContain(`History of versions 16-25 of 25, oldest first:`);
    expect(text).toContain("15 older versions are not shown (nor their events) to keep this answer small: memory_get with versionsBefore 16 shows up to 10 more.");

    // Follow versionsBefore; pages come newest first.
    const pages = [first];
    while (pages[pages.length - 1]!.earlierVersions) {
      pages.push(await getFact(tdb.db, writer, { name: "long-history", versionsBefore: pages[pages.length - 1]!.versions[0]!.version }));
    }
    expect(pages.map((p) => [p.versions[0]?.version, p.versions.length, p.earlierVersions])).toEqual([
      [16, 10, 15],
      [6, 10, 5],
      [1, 5, undefined],
    ]);
    const oldestFirst = [...pages].reverse();
    const versions: FactVersion[] = oldestFirst.flatMap((p) => p.versions);
    const events: FactEvent[] = oldestFirst.flatMap((p) => p.events);
    expect(versions.map((v) => [v.version, v.body])).toEqual(Array.from({ length: VERSIONS }, (_, i) => [i + 1, body(i + 1)]));
    const stored = await tdb.db.query<{ kind: string; version: number }>(
      "select e.kind, e.version from fact_events e join facts f on f.id = e.fact_id where f.name = 'long-history' order by e.id",
    );
    expect(events.map((e) => `${e.kind} v${e.version}`)).toEqual(stored.rows.map((e) => `${e.kind} v${e.version}`));
    // Every answer stays near eleven bodies (the current one and ten versions), whatever the history's length.
    for (const page of pages) expect(fullFactText(page).length).toBeLessThan(12 * 1000 + 3000);
    expect(fullFactText(pages[2]!)).toContain("History of versions 1-5 of 25, oldest first:");
  });

  it("shows a short history whole, with no earlierVersions, and refuses a versionsBefore below 2", async () => {
    const short = await getFact(tdb.db, writer, { name: "short-history" });
    expect(short.versions.map((v) => v.version)).toEqual([1, 2]);
    expect(short).not.toHaveProperty("earlierVersions");
    expect(fullFactText(short)).toContain("History, oldest first (2 versions):");
    expect(fullFactText(short)).not.toContain("not shown");
    expect((await getFact(tdb.db, writer, { name: "short-history", versionsBefore: 2 })).versions.map((v) => v.version)).toEqual([1]);
    expect((await getFact(tdb.db, writer, { name: "short-history", versionsBefore: 99 })).versions.map((v) => v.version)).toEqual([1, 2]);
    const error = await domainError(getFact(tdb.db, writer, { name: "short-history", versionsBefore: 1 }));
    expect(error.message).toMatch(/versionsBefore must be a version number of 2 or more/);
  });

  it("export, which reads history through its own SQL, still writes every version", async () => {
    const dir = await mkdtemp(join(tmpdir(), "am-history-"));
    try {
      await exportTo(tdb.db, dir);
      const file = (await readTree(dir))["shared/project_long-history.md"]!;
      for (let v = 1; v <= VERSIONS; v++) expect(file, `version ${v}`).toContain(`Version ${v} of the rule`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
