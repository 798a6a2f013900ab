// One export is a whole backup: every scope's knowledge graph travels in the
// tree as <scope>/graph.jsonl beside the facts and the ledger, on both
// databases. Export → import into an empty database → export again gives the
// same bytes, the authors and times of every row kept; a second import
// changes nothing; a dry run writes nothing; a
// scope's graph that is gone loses its file; --scope keeps only its graphs; a
// scope with a graph and no fact gets its folder.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/core/database.js";
import { exportGraph } from "../../src/graph/transfer.js";
import { createEntities, createRelations, deleteEntities } from "../../src/graph/store.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addTeam, exportTo, importFrom, populate, readTree, type Team } from "./helpers.js";

async function graphOf(db: Database, scope: string): Promise<string> {
  let text = "";
  await exportGraph(db, scope, async (chunk) => {
    text += chunk;
  });
  return text;
}

describe.each(BACKENDS)("the knowledge graph in an exported tree on %s", (backend) => {
  let source: TestDatabase;
  let target: TestDatabase;
  let team: Team;
  let work: string;
  const dir = (name: string) => join(work, name);

  beforeAll(async () => {
    [source, target] = await Promise.all([createTestDatabase(backend), createTestDatabase(backend)]);
    team = await addTeam(source.db);
    await populate(source.db, team);
    const writer = (scope: string) => ({ scope, agentId: team.writer.agentId, maxChars: 2000 });
    await createEntities(source.db, writer("shared"), [
      { name: "deploy-pipeline", entityType: "system", observations: ["runs migrations first", "本番は金曜に凍結"] },
      { name: "migrations", entityType: "step", observations: [] },
    ]);
    await createRelations(source.db, writer("shared"), [{ from: "deploy-pipeline", to: "migrations", relationType: "runs" }]);
    await createEntities(source.db, writer("blog"), [{ name: "qiita", entityType: "site", observations: ["タグは5つまで", 'quotes " and \\ kept'] }]);
    work = await mkdtemp(join(tmpdir(), "am-graph-tree-"));
  });
  afterAll(async () => {
    await Promise.all([source?.drop(), target?.drop()]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("exports each scope's graph, restores it into an empty database, and exports the same bytes again", async () => {
    const first = await exportTo(source.db, dir("a"));
    expect(first.graphs).toEqual([
      { scope: "blog", file: "blog/graph.jsonl", entities: 1, relations: 0 },
      { scope: "shared", file: "shared/graph.jsonl", entities: 2, relations: 1 },
    ]);
    const shared = await readFile(join(dir("a"), "shared/graph.jsonl"), "utf8");
    // The reference's lines, then who wrote each row and when.
    const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const by = { createdBy: "blog-writer", createdAt: at };
    expect(shared.endsWith("\n")).toBe(true);
    expect(shared.trimEnd().split("\n").map((l) => JSON.parse(l) as unknown)).toEqual([
      { type: "entity", name: "deploy-pipeline", entityType: "system", observations: ["runs migrations first", "本番は金曜に凍結"], ...by, observationsMeta: [by, by] },
      { type: "entity", name: "migrations", entityType: "step", observations: [], ...by, observationsMeta: [] },
      { type: "relation", from: "deploy-pipeline", to: "migrations", relationType: "runs", ...by },
    ]);
    expect(shared.split("\n")[0]).toMatch(/^\{"type":"entity","name":"deploy-pipeline","entityType":"system","observations":\[[^\]]*\],"createdBy":"blog-writer","createdAt":/);

    const report = await importFrom(target.db, dir("a"));
    expect(report.graphs.map((g) => [g.file, g.report.entities.created, g.report.observations.added, g.report.relations.created, g.report.invalidCount])).toEqual([
      ["blog/graph.jsonl", 1, 2, 0, 0],
      ["shared/graph.jsonl", 2, 2, 1, 0],
    ]);
    for (const scope of ["shared", "blog"]) expect(await graphOf(target.db, scope)).toBe(await graphOf(source.db, scope));
    // Recorded as created by whom the lines name, when they say (the agents came with the tree).
    const WRITTEN = `select a.name, to_char(e.created_at at time zone 'UTC', 'HH24:MI:SS.MS') as at from graph_entities e join agents a on a.id = e.created_by order by e.scope, e.name`;
    expect((await target.db.query(WRITTEN)).rows).toEqual((await source.db.query(WRITTEN)).rows);

    await exportTo(target.db, dir("b"));
    expect(await readTree(dir("b"))).toEqual(await readTree(dir("a")));

    const again = await importFrom(target.db, dir("a"));
    expect(again.graphs.map((g) => [g.report.entities.created, g.report.entities.existing, g.report.relations.created])).toEqual([
      [0, 1, 0],
      [0, 2, 0],
    ]);
  });

  it("a dry run reads and checks every graph line and writes nothing; a bad line is listed", async () => {
    const empty = await createTestDatabase(backend);
    try {
      await addTeam(empty.db);
      await exportTo(source.db, dir("dry"));
      const file = join(dir("dry"), "blog/graph.jsonl");
      await import("node:fs/promises").then((fs) => fs.appendFile(file, '{"type":"entity","name":""}\n'));
      const report = await importFrom(empty.db, dir("dry"), { dryRun: true });
      expect(report.graphs.map((g) => [g.file, g.report.lines, g.report.invalidCount])).toEqual([
        ["blog/graph.jsonl", 2, 1],
        ["shared/graph.jsonl", 3, 0],
      ]);
      expect(report.graphs[0]!.report.invalid[0]).toMatchObject({ line: 2 });
      expect((await empty.db.query<{ n: number }>("select count(*)::int as n from graph_entities")).rows[0]!.n).toBe(0);
    } finally {
      await empty.drop();
    }
  });

  it("removes the file of a scope whose graph is gone, and --scope exports only that scope's graph", async () => {
    await exportTo(source.db, dir("c"));
    await deleteEntities(source.db, { scope: "blog", agentId: team.writer.agentId }, ["qiita"]);
    const second = await exportTo(source.db, dir("c"));
    expect(second.graphs.map((g) => g.file)).toEqual(["shared/graph.jsonl"]);
    expect(second.removedFiles).toEqual(["blog/graph.jsonl"]);
    expect(second.facts.removed).toBe(0);

    const only = await exportTo(source.db, dir("d"), { scopes: ["blog"] });
    expect(only.graphs).toEqual([]);
    expect(Object.keys(await readTree(dir("d"))).filter((f) => f.endsWith("graph.jsonl"))).toEqual([]);
  });

  it("exports the graph of a scope that holds no fact (its folder made for it)", async () => {
    await createEntities(source.db, { scope: "graph-only", agentId: team.writer.agentId, maxChars: 2000 }, [{ name: "lonely", entityType: "note", observations: ["no fact here"] }]);
    const report = await exportTo(source.db, dir("e"));
    expect(report.graphs.map((g) => g.file)).toContain("graph-only/graph.jsonl");
    expect(await readFile(join(dir("e"), "graph-only/graph.jsonl"), "utf8")).toContain('"name":"lonely"');
  });
});
