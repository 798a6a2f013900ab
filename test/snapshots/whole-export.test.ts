// A whole export: besides facts, the ledger and the graphs, the team (agents
// with kind, scopes and disabled, never a token; the ledger's action-to-scope
// mappings) and who wrote each graph row and when. Imported into an empty
// database it restores all of them; a dry run checks every file as the real
// run would (the agents it would create included) and writes nothing.
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, setAgentDisabled } from "../../src/auth/store.js";
import { addCaller, fact, store } from "../facts/helpers.js";
import type { Queryable } from "../../src/db/core/database.js";
import { listActionScopes } from "../../src/ledger/actions.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { fillTeamMemory } from "../support/team-memory.js";
import { exportTo, importFrom, readTree, rowCounts } from "./helpers.js";

const AGENTS = `
  select name, kind, write_scopes, read_scopes, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') as created, disabled_at is not null as disabled
    from agents where name <> 'importer' order by id`;
const GRAPH = `
  select 'entity' as what, e.scope, e.name as text, a.name as by, to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') as at
    from graph_entities e join agents a on a.id = e.created_by
  union all
  select 'observation', o.scope, o.content, a.name, to_char(o.created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS')
    from graph_observations o join agents a on a.id = o.created_by
  union all
  select 'relation', r.scope, r.from_name || ' ' || r.relation_type || ' ' || r.to_name, a.name, to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS')
    from graph_relations r join agents a on a.id = r.created_by
  order by 1, 2, 3`;
const rows = async (db: Queryable, sql: string) => (await db.query(sql)).rows;
const mappings = async (db: Queryable) => (await listActionScopes(db)).map((m) => ({ ...m, setAt: m.setAt.toISOString().slice(0, 23) }));

describe.each(BACKENDS)("a whole export on %s", (backend) => {
  let source: TestDatabase;
  let work: string;

  beforeAll(async () => {
    source = await createTestDatabase(backend);
    await fillTeamMemory(source.db);
    await createAgent(source.db, { name: "retired-bot", kind: "agent", writeScopes: ["ops"], readScopes: ["blog"] });
    await setAgentDisabled(source.db, "retired-bot", true);
    await store(source.db, await addCaller(source.db, "owner", { kind: "human", scopes: ["*"] }), fact("owner-rule", { description: "Written by the first start's owner" }));
    work = await mkdtemp(join(tmpdir(), "am-whole-export-"));
    await exportTo(source.db, work);
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("writes the agents without tokens, the action mappings, and who wrote each graph row when", async () => {
    const tree = await readTree(work);
    const agents = tree["agents.jsonl"]!.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(agents.map((a) => [a.name, a.kind, a.scopes, a.readScopes, a.disabled])).toEqual([
      ["blog-writer", "agent", ["shared", "blog"], [], false],
      ["reviewer", "human", ["*"], [], false],
      ["deployer", "agent", ["shared", "ops"], [], false],
      ["retired-bot", "agent", ["ops"], ["blog"], true],
      ["owner", "human", ["*"], [], false],
    ]);
    expect(tree["agents.jsonl"]).not.toMatch(/amk_|token|hash/i);
    expect(JSON.parse(tree["ledger-actions.jsonl"]!)).toMatchObject({ action: "publish_qiita", scope: "blog", setBy: "reviewer" });
    const graph = tree["blog/graph.jsonl"]!.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(graph[1]).toMatchObject({
      type: "entity",
      name: "記事-1",
      observations: ["公開済み"],
      createdBy: "blog-writer",
      observationsMeta: [{ createdBy: "deployer", createdAt: expect.stringMatching(/Z$/) }],
    });
    expect(graph[2]).toMatchObject({ type: "relation", from: "記事-1", to: "Qiita", relationType: "published_on", createdBy: "blog-writer" });
  });

  it("a dry run into an empty database checks every file as the real run would, and writes nothing", async () => {
    const empty = await createTestDatabase(backend);
    try {
      const before = await rowCounts(empty.db);
      const dry = await importFrom(empty.db, work, { dryRun: true });
      expect(dry.team.agents.created).toEqual(["blog-writer", "reviewer", "deployer", "retired-bot", "owner"]);
      expect(dry.facts).toEqual({ created: 7, updated: 0, unchanged: 0, invalid: 0 });
      expect(dry.ledger).toMatchObject({ appended: 7, invalid: [] });
      expect(dry.team.ledgerActions).toMatchObject({ restored: 1, invalid: [] });
      expect(dry.missingAgents).toEqual([]);
      expect(await rowCounts(empty.db)).toEqual(before);
      expect(await rows(empty.db, "select name from agents")).toEqual([]);
    } finally {
      await empty.drop();
    }
  });

  it("imported into an empty database restores the agents, the action mappings and the graph's authors and times", async () => {
    const target = await createTestDatabase(backend);
    try {
      const report = await importFrom(target.db, work);
      expect(report.team).toEqual({
        agents: { file: "agents.jsonl", created: ["blog-writer", "reviewer", "deployer", "retired-bot", "owner"], existing: 0, invalid: [] },
        ledgerActions: { file: "ledger-actions.jsonl", restored: 1, unchanged: 0, invalid: [] },
      });
      expect(report.facts.invalid).toBe(0);
      expect(await rows(target.db, AGENTS)).toEqual(await rows(source.db, AGENTS));
      expect(await rows(target.db, "select count(*)::int as n from agent_tokens")).toEqual([{ n: 0 }]);
      expect(await mappings(target.db)).toEqual(await mappings(source.db));
      expect(await rows(target.db, GRAPH)).toEqual(await rows(source.db, GRAPH));

      // Again: everything is there already, nothing changes.
      const again = await importFrom(target.db, work);
      expect(again.team.agents).toMatchObject({ created: [], existing: 5 });
      expect(again.team.ledgerActions).toMatchObject({ restored: 0, unchanged: 1 });
      expect(again.warnings).toEqual([]);
      expect(await rows(target.db, GRAPH)).toEqual(await rows(source.db, GRAPH));
    } finally {
      await target.drop();
    }
  });

  it("without agents.jsonl, names the agents to create, the first start's owner as the person it was", async () => {
    const tree = await mkdtemp(join(tmpdir(), "am-whole-export-no-agents-"));
    const empty = await createTestDatabase(backend);
    try {
      await cp(work, tree, { recursive: true });
      await rm(join(tree, "agents.jsonl"));
      const dry = await importFrom(empty.db, tree, { dryRun: true });
      expect(dry.files.find((f) => f.name === undefined && f.file === "shared/project_owner-rule.md")?.reason).toBe(
        `History entry 1: by "owner" is not an agent here: create it (agent-memory agent add owner --kind human --scopes '*' --no-token) or pass --as <agent> to import its work under that agent.`,
      );
      expect(dry.missingAgents.map((m) => m.name)).toContain("owner");
    } finally {
      await empty.drop();
      await rm(tree, { recursive: true, force: true });
    }
  });

  it("keeps what a database has already, saying where it differs; a file with a bad line is not imported", async () => {
    const target = await createTestDatabase(backend);
    try {
      await createAgent(target.db, { name: "reviewer", kind: "agent", writeScopes: ["shared"] });
      const report = await importFrom(target.db, work);
      expect(report.team.agents).toMatchObject({ existing: 1 });
      expect(report.warnings).toContain(
        'agents.jsonl: agent "reviewer" exists here as agent with scopes shared; the file has human with scopes *. Kept as it is here (change it with agent-memory agent scopes / disable / enable).',
      );
      const bad = await mkdtemp(join(tmpdir(), "am-whole-export-bad-"));
      try {
        const { writeFile } = await import("node:fs/promises");
        await writeFile(join(bad, "agents.jsonl"), `${(await readFile(join(work, "agents.jsonl"), "utf8")).trimEnd()}\n{"name":"importer","kind":"agent","scopes":[],"readScopes":[],"created":"2026-01-01T00:00:00.000Z","disabled":true}\n`);
        const refused = await importFrom(target.db, bad);
        expect(refused.team.agents.invalid).toEqual([{ line: 6, reason: '"importer" is the reserved import identity, never listed: remove the line' }]);
        expect(await rows(target.db, "select name from agents where name = 'retired-bot'")).toHaveLength(1);
      } finally {
        await rm(bad, { recursive: true, force: true });
      }
    } finally {
      await target.drop();
    }
  });
});
