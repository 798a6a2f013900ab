// A team's year of memory as exported snapshot trees (docs/snapshots.md), for
// the scale section to load through `agent-memory import`, the bulk path every
// team has. Written with the service's own writers of that format
// (renderFactFile, entityLine, relationLine), so the trees are what an export
// of such a memory would be:
// - the facts tree: agents.jsonl (writers, a reviewer, a reader) and N facts of
//   the bench corpus (bench/lib/corpus.ts) in scopes of their own, over a year:
//   most confirmed, some still drafts, some revised to a second version, some
//   confirmed and later deprecated;
// - the graph tree: both graph corpora (bench/lib/graph-corpus.ts) at half of
//   M entities each, with as many relations, and each at 1,000 entities, with
//   who wrote every line and when.
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { once } from "node:events";
import { entityLine, relationLine } from "../../src/graph/jsonl.js";
import { renderFactFile } from "../../src/snapshots/markdown.js";
import { AGENTS_FILE, factPath, graphPath, type SnapshotEvent, type SnapshotFact } from "../../src/snapshots/model.js";
import { generateFact } from "./corpus.js";
import { CORPORA, type GraphCorpus } from "./graph-corpus.js";

/** The corpus's scopes (shared, team-a, team-b), each under this prefix: apart from what other sections load. */
export const scaleScope = (corpusScope: string) => `scale-${corpusScope}`;
export const SCALE_SCOPES = ["shared", "team-a", "team-b"].map(scaleScope);
const WRITERS = ["scale-writer-1", "scale-writer-2", "scale-writer-3"];
const REVIEWER = "scale-reviewer";
/** Reads and writes the scale scopes only: recall's hits are the corpus's. */
export const SCALE_READER = "scale-reader";

/** The graph at the scale size and the one it is compared with, per corpus. */
export const SMALL_GRAPH = 1000;
export const graphScope = (corpus: GraphCorpus, n: number) => `scale-graph-${corpus.name}-${n}`;

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Fact i's history: 60 % confirmed, 20 % drafts, 10 % revised once (a draft at version 2), 10 % confirmed and deprecated half a day later. */
function snapshotFact(i: number, total: number, start: number): SnapshotFact {
  const f = generateFact(i, total);
  const author = WRITERS[i % WRITERS.length]!;
  const reviser = WRITERS[(i + 1) % WRITERS.length]!;
  const at = (ms: number) => new Date(ms).toISOString();
  const created = start + Math.floor((i * 364 * DAY) / total);
  const kind = i % 10;
  const history: SnapshotEvent[] = [{ version: 1, event: "created", by: author, at: at(created), from: null, to: "draft", reason: null }];
  const promote = (event: "confirmed" | "deprecated", from: "draft" | "confirmed", after: number, reason: string) =>
    history.push({ version: history[history.length - 1]!.version, event, by: REVIEWER, at: at(created + after), from, to: event, reason });
  let earlier: SnapshotFact["earlier"] = [];
  if (kind <= 5 || kind === 9) promote("confirmed", "draft", HOUR, "Checked against the runbook.");
  if (kind === 9) promote("deprecated", "confirmed", 12 * HOUR, "Replaced by a newer rule of the same team.");
  if (kind === 8) {
    // Version 1 was the first sentence of the body; version 2 says the rest.
    earlier = [{ version: 1, type: f.type, description: f.description, body: f.body.split(/(?<=[.。] ?)/u)[0]!.trim() }];
    history.push({ version: 2, event: "updated", by: reviser, at: at(created + DAY), from: "draft", to: "draft", reason: null });
  }
  const last = history[history.length - 1]!;
  const wrote = history.findLast((e) => e.event === "created" || e.event === "updated")!;
  return {
    name: f.name,
    description: f.description,
    type: f.type,
    status: last.to,
    scope: scaleScope(f.scope),
    author: wrote.by,
    version: wrote.version,
    created: at(created),
    updated: wrote.at,
    body: f.body,
    history,
    earlier,
    redactions: [],
  };
}

/** Runs `write(i)` for i in [0, n) with a few files in flight at a time. */
async function forEachParallel(n: number, write: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < n; i = next++) await write(i);
    }),
  );
}

/** The facts tree: agents.jsonl and `total` fact files. Times end a day before `now`. */
export async function writeFactsTree(dir: string, total: number, now: number): Promise<void> {
  const start = now - 366 * DAY;
  const created = new Date(start - DAY).toISOString();
  const agent = (name: string, kind: "agent" | "human", scopes: string[]) => JSON.stringify({ name, kind, scopes, readScopes: [], created, disabled: false });
  const agents = [...WRITERS.map((w) => agent(w, "agent", SCALE_SCOPES)), agent(REVIEWER, "human", SCALE_SCOPES), agent(SCALE_READER, "agent", SCALE_SCOPES)];
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, AGENTS_FILE), `${agents.join("\n")}\n`);
  for (const scope of SCALE_SCOPES) await mkdir(join(dir, scope), { recursive: true });
  await forEachParallel(total, async (i) => {
    const fact = snapshotFact(i, total, start);
    await writeFile(join(dir, factPath(fact.scope, fact.type, fact.name)), renderFactFile(fact));
  });
}

/** The graph tree: each corpus at SMALL_GRAPH entities and at `large`, each line with who wrote it and when. Answers the entities written. */
export async function writeGraphTree(dir: string, large: number, now: number): Promise<number> {
  let written = 0;
  for (const corpus of [CORPORA.sprint!, CORPORA.mixed!]) {
    for (const n of new Set([SMALL_GRAPH, large])) {
      const scope = graphScope(corpus, n);
      await mkdir(join(dir, scope), { recursive: true });
      const out = createWriteStream(join(dir, graphPath(scope)));
      const put = async (line: string) => {
        if (!out.write(`${line}\n`)) await once(out, "drain");
      };
      const at = (i: number) => new Date(now - DAY - (n - i) * 1000).toISOString();
      const by = (i: number) => WRITERS[i % WRITERS.length]!;
      for (let i = 0; i < n; i++) {
        const e = corpus.entity(i, n);
        await put(entityLine(e, { createdBy: by(i), createdAt: at(i), observationsMeta: e.observations.map(() => ({ createdBy: by(i), createdAt: at(i) })) }));
      }
      for (let i = 0; i < n; i++) await put(relationLine(corpus.relation(i, n), { createdBy: by(i), createdAt: at(i) }));
      out.end();
      await once(out, "finish");
      written += n;
    }
  }
  return written;
}
