// The ledger's write path of two checkouts, alternated in one run:
//
//   git archive main | tar -x -C /tmp/ledger-base && ln -s "$PWD/node_modules" /tmp/ledger-base/
//   node --no-warnings --import tsx bench/ledger-ab.ts --base /tmp/ledger-base [--rounds 6] [--pairs 300] [--clients 16]
//
// Each round runs bench/ledger-profile.ts (this checkout's copy, put into the base
// too) once in each checkout, in the order A B, then B A, each on a fresh database
// migrated by its own checkout, and collects its figures: pairs/s and pair latency
// with 1 and 16 clients, and the CPU per pair of the writing process and of the
// Postgres backends. Prints the medians of the rounds and the load average.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { round } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    rounds: { type: "string", default: "6" },
    pairs: { type: "string", default: "300" },
    clients: { type: "string", default: "16" },
  },
});
if (!values.base) throw new Error("--base DIR: the checkout to compare with (see the header of bench/ledger-ab.ts)");
const here = resolve(fileURLToPath(new URL("..", import.meta.url)));
const trees = { A: resolve(values.base), B: here };
copyFileSync(join(here, "bench/ledger-profile.ts"), join(trees.A, "bench/ledger-profile.ts"));
const out = mkdtempSync(join(tmpdir(), "ledger-ab-"));
const load = () => execFileSync("uptime").toString().trim().replace(/.*load/, "load");

type Summary = Record<string, Record<string, number>>;
const results: Record<"A" | "B", Summary[]> = { A: [], B: [] };
console.log(`A = ${trees.A}\nB = ${trees.B}\nstart: ${load()}`);
for (let r = 0; r < Number(values.rounds); r++) {
  for (const tree of r % 2 === 0 ? (["A", "B"] as const) : (["B", "A"] as const)) {
    const json = join(out, `${tree}-${r}.json`);
    execFileSync(
      process.execPath,
      ["--no-warnings", "--import", "tsx", "bench/ledger-profile.ts", "--variants", "after", "--rounds", "1", "--pairs", values.pairs, "--clients", values.clients, "--json", json],
      { cwd: trees[tree], stdio: ["ignore", "ignore", "inherit"] },
    );
    const summary = (JSON.parse(readFileSync(json, "utf8")) as { summary: Summary }).summary;
    results[tree].push(summary);
    const line = Object.entries(summary).map(([k, v]) => `${k.replace("after, ", "")}: ${round(v.pairsPerSecond!, 1)} pairs/s`).join(", ");
    console.log(`round ${r + 1} ${tree}: ${line}  (${load()})`);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const measures = ["pairsPerSecond", "p50", "p99", "nodeCpuMsPerPair", "pgCpuMsPerPair"] as const;
console.log(`\nmedians of ${values.rounds} rounds (A = base, B = this checkout); end: ${load()}`);
for (const row of Object.keys(results.B[0]!)) {
  console.log(`\n${row.replace("after, ", "")}`);
  for (const m of measures) {
    const a = median(results.A.map((s) => s[row]![m]!));
    const b = median(results.B.map((s) => s[row]![m]!));
    console.log(`  ${m.padEnd(18)} A ${String(round(a)).padStart(8)}   B ${String(round(b)).padStart(8)}   B/A ${round(b / a)}`);
  }
}
