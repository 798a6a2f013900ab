// The answer to a call of a tool this server does not have: the SDK says only
// "Tool X not found". An agent that guessed a name (memory_search, recall,
// ledger_get) is told the closest ones and where the list is. A name too long
// to be a tool's is answered as such, with no comparison at all.
import { QUOTED_NAME_MAX_CHARS, SUGGESTED_NAME_MAX_CHARS } from "../limits.js";
import { clip } from "../text.js";

/** Edit distance (insert, delete, substitute one character). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** The tools whose names look like `name`: one contains the other, a word in common, or a few edits apart; closest first, at most 3. */
function closestTools(name: string, tools: readonly string[]): string[] {
  const wanted = name.toLowerCase();
  const words = new Set(wanted.split(/[_\-.\s]+/).filter((w) => w.length >= 3));
  return tools
    .map((tool) => {
      const edits = distance(wanted, tool);
      const related = tool.includes(wanted) || wanted.includes(tool) || tool.split("_").some((w) => words.has(w)) || edits <= Math.max(2, Math.floor(wanted.length / 3));
      return { tool, edits, related };
    })
    .filter((t) => t.related)
    .sort((a, b) => a.edits - b.edits || (a.tool < b.tool ? -1 : 1))
    .slice(0, 3)
    .map((t) => t.tool);
}

export function unknownToolText(name: string, tools: readonly string[]): string {
  const list = ` This server's tools: ${[...tools].sort().join(", ")} (tools/list describes each).`;
  if (name.length > SUGGESTED_NAME_MAX_CHARS) {
    return `Tool "${clip(name, QUOTED_NAME_MAX_CHARS)}" not found: a name of ${name.length} characters is not a tool name (at most ${SUGGESTED_NAME_MAX_CHARS}).${list}`;
  }
  const near = closestTools(name, tools);
  return (
    `Tool "${name}" not found.` +
    (near.length > 0 ? ` Did you mean ${near.join(", ")}?` : "") +
    list
  );
}
