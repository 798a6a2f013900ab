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

describe("Authorization: Bearer values of any format", () => {
  const kinds = async (text: string) => (await findSecrets([["body", text]])).map((h) => h.kind);
  it("refuses hex, lower-case and opaque token values (one or two character classes)", async () => {
    const hex40 = "3f9a1c7e52b04d8e9f61a2c3b4d5e6f708192a3b";
    const hex64 = "9c1e4b7a2d5f8e0c3b6a9d2f5e8b1c4a7d0e3f6b9c2a5d8e1f4b7c0a3d6e9f2b";
    const lower32 = "k3j9x2m7q5w8n4v1b6z0r2t8y5u3p7s1";
    for (const value of [hex40, hex64, lower32, "AbCdEf0123456789GhIjKlMn"]) {
      expect(await kinds(`curl -H "Authorization: Bearer ${value}" https://api.example.com`), value).not.toEqual([]);
    }
  });
  it("lets placeholders and prose through", async () => {
    for (const text of [
      "send `Authorization: Bearer <token>`",
      "Authorization: Bearer ${AGENT_MEMORY_TOKEN}",
      "Authorization: Bearer YOUR_TOKEN_HERE_PLEASE",
      "Bearer authentication is what every client here uses",
      "the header is Bearer token_from_environment_variable",
    ]) {
      expect(await kinds(text), text).toEqual([]);
    }
  });
});
