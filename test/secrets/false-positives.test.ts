// The guard's false positives: none on the texts the project already knows to
// be ordinary memory: the recall-quality set, the benchmark's fact and graph
// corpora, the import fixtures (seeds from the write-ups), and similar-pairs.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateFact } from "../../bench/lib/corpus.js";
import { CORPORA } from "../../bench/lib/graph-corpus.js";
import { FACTS } from "../../bench/recall-quality/set.js";
import { type FieldText, findSecrets } from "../../src/secrets/guard.js";
import { DIFFERENT_FACTS, SAME_FACT } from "../facts/similar-pairs.js";

async function hitsIn(texts: FieldText[]) {
  const hits = [];
  // In chunks, as a write would be: one scan per call.
  for (let i = 0; i < texts.length; i += 50) hits.push(...(await findSecrets(texts.slice(i, i + 50))));
  return hits;
}

describe("secret guard false positives", () => {
  it("finds nothing in the recall-quality set", async () => {
    expect(await hitsIn(FACTS.flatMap((f) => [[`${f.name}.name`, f.name], [`${f.name}.description`, f.description], [`${f.name}.body`, f.body]] as FieldText[]))).toEqual([]);
  });

  it("finds nothing in 3,000 facts of the benchmark corpus", async () => {
    const texts = Array.from({ length: 3000 }, (_, i) => generateFact(i, 3000)).flatMap((f) => [[`${f.name}.description`, f.description], [`${f.name}.body`, f.body]] as FieldText[]);
    expect(await hitsIn(texts)).toEqual([]);
  });

  it("finds nothing in the benchmark's graph corpora", async () => {
    const texts: FieldText[] = [];
    for (const corpus of Object.values(CORPORA)) {
      for (let i = 0; i < 2000; i++) {
        const e = corpus.entity(i, 2000);
        const r = corpus.relation(i, 2000);
        texts.push([`${corpus.name}.entity`, e.name], [`${corpus.name}.type`, e.entityType], ...e.observations.map((o): FieldText => [`${corpus.name}.observation`, o]), [`${corpus.name}.relation`, r.relationType]);
      }
    }
    expect(await hitsIn(texts)).toEqual([]);
  });

  it("finds nothing in the import fixtures and the duplicate-warning pairs", async () => {
    const dir = join(import.meta.dirname, "../snapshots/fixtures/seeds");
    const files = await readdir(dir);
    const texts: FieldText[] = await Promise.all(files.map(async (f): Promise<FieldText> => [f, await readFile(join(dir, f), "utf8")]));
    texts.push(...[...SAME_FACT, ...DIFFERENT_FACTS].flat(2).map((t, i): FieldText => [`pair${i}`, t]));
    expect(await hitsIn(texts)).toEqual([]);
  });
});

it("leaves nothing behind per scan (secretlint's profiler would keep two performance marks per rule per scan)", async () => {
  performance.clearMarks();
  for (let i = 0; i < 200; i++) await findSecrets([["body", `scan ${i} of a text with no credential in it`]]);
  expect(performance.getEntriesByType("mark")).toHaveLength(0);
});
