// Snapshots spans facts, the ledger and agents through their owners' exported
// functions. depcheck (snapshots-use-public-exports) keeps it away from their
// modules; this keeps it away from their tables: no SQL in src/snapshots names a
// table but its own, so a change to a table is made, and checked, in one place.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const OWN_TABLES = new Set(["snapshot_imports"]);

function filesUnder(dir: string, ending: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(ending))
    .map((f) => join(root, dir, f));
}

/** Every table the schema creates, wherever under sql/ its statement is. */
const tables = [
  ...new Set(filesUnder("sql", ".sql").flatMap((f) => [...readFileSync(f, "utf8").matchAll(/create table (?:if not exists )?([a-z_]+)/gi)].map((m) => m[1]!.toLowerCase()))),
];

/** The tables a text reads or writes: named right after from, join, into, update or table. */
function tablesNamedIn(text: string): string[] {
  return tables.filter((t) => new RegExp(`\\b(from|join|into|update|table)\\s+${t}\\b`, "i").test(text));
}

describe("snapshots' SQL", () => {
  it("sees the schema's tables and would notice one named in a statement", () => {
    expect(tables).toEqual(expect.arrayContaining(["facts", "fact_versions", "fact_events", "ledger_events", "agents", "snapshot_imports"]));
    expect(tablesNamedIn("select exists (select 1 from ledger_events e where e.kind = $1::text)")).toEqual(["ledger_events"]);
    expect(tablesNamedIn("select f.id from facts f join agents a on a.id = f.author_id")).toEqual(["agents", "facts"]);
  });

  it("names no table but snapshot_imports", () => {
    for (const file of filesUnder("src/snapshots", ".ts")) {
      const named = tablesNamedIn(readFileSync(file, "utf8")).filter((t) => !OWN_TABLES.has(t));
      expect(named, `${file} names another capability's tables`).toEqual([]);
    }
  });
});
