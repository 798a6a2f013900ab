// Derives src/facts/common-trigrams.ts: the three-letter pieces found in at
// least 5% of the paragraphs of technical English at hand (the README.md files
// of the npm dependencies, code blocks left out). Recall leaves these out of
// the pattern it gives the trigram index for a one-word keyword (see
// indexPattern in src/facts/rules.ts); which pieces are listed changes how fast
// a recall is, never what it finds. Run from the repository root after
// `npm install`, and paste the output over the list:
//   node --no-warnings --import tsx bench/common-trigrams.ts
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

const SHARE = 0.05;
const files = readdirSync("node_modules", { recursive: true, encoding: "utf8" })
  .filter((f) => basename(f).toLowerCase() === "readme.md")
  .map((f) => join("node_modules", f))
  .sort();
const paragraphsWith = new Map<string, number>();
let paragraphs = 0;
for (const file of files) {
  const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, " ");
  for (const paragraph of text.split(/\n\s*\n/)) {
    const words = paragraph.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    if (words.length < 8) continue;
    paragraphs++;
    const seen = new Set<string>();
    for (const word of words) {
      const chars = [...word];
      for (let i = 0; i + 3 <= chars.length; i++) seen.add(chars.slice(i, i + 3).join(""));
    }
    for (const t of seen) paragraphsWith.set(t, (paragraphsWith.get(t) ?? 0) + 1);
  }
}
const common = [...paragraphsWith].filter(([, n]) => n >= SHARE * paragraphs).map(([t]) => t).sort();
console.error(`${files.length} files, ${paragraphs} paragraphs, ${paragraphsWith.size} distinct trigrams, ${common.length} in ${SHARE * 100}% or more`);
const lines: string[] = [];
for (let i = 0; i < common.length; i += 20) lines.push(`  "${common.slice(i, i + 20).join(" ")}",`);
console.log(lines.join("\n"));
