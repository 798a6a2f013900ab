// node --import tsx bench/chart.ts bench/results/bench-….json [out.svg]
// Draws the chart of an existing results file again (npm run bench writes one
// beside each JSON itself). docs/bench-chart.svg is made this way from a real run.
import { readFileSync, writeFileSync } from "node:fs";
import { type ChartInput, renderBenchChart } from "./lib/chart.js";

const [input, output] = process.argv.slice(2);
if (!input) {
  console.error("usage: node --import tsx bench/chart.ts <results.json> [out.svg]");
  process.exit(2);
}
const out = output ?? input.replace(/\.json$/, "") + ".svg";
writeFileSync(out, renderBenchChart(JSON.parse(readFileSync(input, "utf8")) as ChartInput));
console.log(`chart written to ${out}`);
