// How many facts an exact duplicate lookup must look at (issue 15), computed in
// memory over the benchmark's corpus, without a database.
//
// The duplicate warning lists facts whose trigram similarity to the new one is at
// least 0.5. That needs at least half of the new fact's trigrams in common, so any
// exact index must read the facts that hold one of its rarest `a - ceil(a/2) + 1`
// trigrams (what GIN's fast scan reads for `<%`). Prefix filtering (AllPairs)
// also indexes each fact by only its own rarest `floor(b/2) + 1` trigrams, under
// one order: here the store's own frequencies, the best order there is. This
// script counts the candidates of both for the benchmark's new facts
// (bench/sections/facts.ts, distinctFact). If prefix filtering looked at far
// fewer facts, it would be worth its maintained order; on this corpus it does not.
//
//   node --no-warnings --import tsx bench/similar-candidates.ts [--facts 100000] [--new 200]
import { parseArgs } from "node:util";
import { generateFact } from "./lib/corpus.js";
import { distinctFact } from "./sections/facts.js";

const { values } = parseArgs({ options: { facts: { type: "string", default: "100000" }, new: { type: "string", default: "200" } } });
const total = Number(values.facts);
const newFacts = Number(values.new);

/** pg_trgm's trigrams of a text: lower-cased words of letters and digits, padded "  word ". */
function trigrams(text: string): string[] {
  const out = new Set<string>();
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!word) continue;
    const chars = [..."  " + word + " "];
    for (let i = 0; i + 3 <= chars.length; i++) out.add(chars.slice(i, i + 3).join(""));
  }
  return [...out];
}

const heads: string[][] = [];
const frequency = new Map<string, number>();
for (let i = 0; i < total; i++) {
  const f = generateFact(i, total);
  const t = trigrams(`${f.name} ${f.description}`);
  heads.push(t);
  for (const x of t) frequency.set(x, (frequency.get(x) ?? 0) + 1);
}
const rarestFirst = (t: string[]) => [...t].sort((a, b) => (frequency.get(a) ?? 0) - (frequency.get(b) ?? 0) || (a < b ? -1 : 1));

function invert(prefixOf: (t: string[]) => string[]): Map<string, number[]> {
  const lists = new Map<string, number[]>();
  heads.forEach((t, id) => {
    for (const x of prefixOf(t)) {
      let list = lists.get(x);
      if (!list) lists.set(x, (list = []));
      list.push(id);
    }
  });
  return lists;
}
const whole = invert((t) => t);
const prefixes = invert((t) => rarestFirst(t).slice(0, Math.floor(t.length / 2) + 1));

function candidates(lists: Map<string, number[]>, probe: string[]): number {
  const seen = new Set<number>();
  for (const x of probe) for (const id of lists.get(x) ?? []) seen.add(id);
  return seen.size;
}

const gin: number[] = [];
const prefix: number[] = [];
for (let n = 1; n <= newFacts; n++) {
  const f = distinctFact(n);
  const q = rarestFirst(trigrams(`${f.name} ${f.description}`));
  gin.push(candidates(whole, q.slice(0, q.length - Math.ceil(q.length / 2) + 1)));
  prefix.push(candidates(prefixes, q.slice(0, Math.floor(q.length / 2) + 1)));
}
const at = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const none = (xs: number[]) => `${((100 * xs.filter((x) => x === 0).length) / xs.length).toFixed(0)}%`;
console.log(`${total.toLocaleString("en")} facts, ${frequency.size.toLocaleString("en")} distinct trigrams; candidates per new fact (${newFacts} new facts)`);
console.log("| index | none | p50 | p90 | max |\n|---|---:|---:|---:|---:|");
for (const [label, xs] of [["GIN over every trigram (today)", gin], ["prefix filtering, the store's own order", prefix]] as const) {
  console.log(`| ${label} | ${none(xs)} | ${at(xs, 0.5)} | ${at(xs, 0.9)} | ${Math.max(...xs)} |`);
}
