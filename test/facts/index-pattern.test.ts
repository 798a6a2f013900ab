// Recall gives the trigram index a keyword without its commonest pieces
// (src/facts/index-pattern.ts). That pattern only narrows what the index is
// asked for; what recall finds must stay exactly what the keyword's substring
// pattern finds. Checked against a plain ILIKE over every fact, with keywords
// whose reduced pattern also matches facts that do not contain them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexPattern } from "../../src/facts/index-pattern.js";
import { recallParams } from "../../src/facts/read.js";
import { RECALL_CALL } from "../../src/facts/recall-sql.js";
import { parseKeywords } from "../../src/facts/rules.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller } from "./helpers.js";

describe("indexPattern", () => {
  it("drops the common trigrams of one word, keeping the rest in order", () => {
    // "min" and "ing" are common; "flami" and "ngo" touch but stay apart (joined, they would bring "min" and "ing" back).
    expect(indexPattern("flamingo", "%flamingo%")).toBe("%flami%ngo%");
    expect(indexPattern("Flamingo", "%Flamingo%")).toBe("%Flami%ngo%");
    expect(indexPattern("migration", "%migration%")).toBe("%migra%");
  });

  it("keeps the exact pattern when fewer than two uncommon trigrams remain, or none is common", () => {
    expect(indexPattern("testing", "%testing%")).toBe("%testing%");
    expect(indexPattern("rounding", "%rounding%")).toBe("%rounding%");
    expect(indexPattern("zyxwvutsrq", "%zyxwvutsrq%")).toBe("%zyxwvutsrq%");
    expect(indexPattern("マイグレーション", "%マイグレーション%")).toBe("%マイグレーション%");
  });

  it("keeps the exact pattern for anything but one word of letters and digits", () => {
    expect(indexPattern("flaky test", "%flaky test%")).toBe("%flaky test%");
    expect(indexPattern("rule-97", "%rule-97%")).toBe("%rule-97%");
    expect(indexPattern("100%", "%100\\%%")).toBe("%100\\%%");
    expect(indexPattern("snake_casing", "%snake\\_casing%")).toBe("%snake\\_casing%");
  });

  it("gives every keyword a pattern that its exact pattern implies", () => {
    for (const k of parseKeywords(["flamingo", "Deployment", "connection", "staging", "\"flaky test\"", "migrations"])) {
      const pieces = k.indexPattern.split("%").filter(Boolean);
      let from = 0;
      for (const piece of pieces) {
        const at = k.text.indexOf(piece, from);
        expect(at, `${piece} in ${k.text}`).toBeGreaterThanOrEqual(0);
        from = at + piece.length;
      }
    }
  });
});

// Texts that hold the reduced pattern of a keyword without the keyword itself
// ("flaming tango" holds "flami…ngo"), the keyword inside longer words, in
// other cases, and in other scripts.
const TEXTS = [
  "A flamingo stands on one leg",
  "FLAMINGOS in the pond",
  "the pinkflamingo mascot",
  "flaming tango at the party",
  "flamin' ngo-ing nonsense",
  "Run the database migration before every deploy",
  "Migrations are reviewed on Mondays",
  "the migra tion of birds",
  "connection pooling for the API",
  "disconnected clients reconnect",
  "on connecting, retry",
  "Staging deploys need the VPN",
  "stagiaire onboarding",
  "Größenänderung der Tabellen",
  "GRÖSSE der Tabellen",
  "ΣΙΓΜΑ ratings in capitals",
  "σιγμα ratings in lower case",
  "本番デプロイの前にマイグレーションを実行する",
];
const KEYWORDS = ["flamingo", "Flamingo", "Änderung", "ÄNDERUNG", "migration", "migrations", "connection", "connect", "staging", "stagi", "größe", "Größenänderung", "σιγμα", "ΣΙΓΜΑ", "マイグレーション", "ratings", "deploy"];

describe.each(BACKENDS)("recall with reduced index patterns on %s", (backend) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const writer = await addCaller(tdb.db, "writer", { scopes: ["shared"] });
    // Each text as a name-less description and, in another fact, as a body, among filler facts.
    await tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'shared', 'text-' || t.i, t.text, 'project', 'Nothing else to say about it.', $2::bigint
         from unnest($1::text[]) with ordinality as t(text, i)
       union all
       select 'shared', 'body-' || t.i, 'A fact with it in the body', 'project', 'Notes: ' || t.text || '.', $2::bigint
         from unnest($1::text[]) with ordinality as t(text, i)
       union all
       select 'shared', 'filler-' || i, 'Generated rule ' || i || ' about caching and testing', 'project', 'Nothing in common with the others ' || i, $2::bigint
         from generate_series(1, 200) as i`,
      [TEXTS, writer.agentId],
    );
    await tdb.db.query("vacuum analyze facts");
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it.each(KEYWORDS)("finds exactly the facts containing %s, as written", async (keyword) => {
    const keywords = parseKeywords([keyword]);
    const rows = (await tdb.db.query<{ r: { name: string; exact_levels: Array<number | null> | null; total: number } }>(
      RECALL_CALL,
      recallParams(keywords, { all: true, scopes: [] }, {}, 50),
    )).rows.map((x) => x.r);
    // Levels 1 and 3 are "contains the keyword as written" (recall-sql-parts.ts EXACT_LEVEL).
    const found = rows.filter((r) => r.exact_levels?.[0] === 1 || r.exact_levels?.[0] === 3).map((r) => r.name).sort();
    const truth = (await tdb.db.query<{ name: string }>(
      `select name from facts where (name || E'\\n' || description || E'\\n' || left(body, 1000)) ilike $1 order by name`,
      [keywords[0]!.pattern],
    )).rows.map((r) => r.name);
    expect(found).toEqual(truth);
    // Every hit matched somehow (a candidate of the reduced pattern alone is no hit).
    expect(rows.every((r) => r.exact_levels?.some((l) => l !== null))).toBe(true);
    expect(rows[0]?.total ?? 0).toBe(rows.length);
  });

  it("does not list a fact that holds only the reduced pattern", async () => {
    const rows = (await tdb.db.query<{ r: { name: string } }>(RECALL_CALL, recallParams(parseKeywords(["flamingo"]), { all: true, scopes: [] }, {}, 50))).rows;
    const names = rows.map((x) => x.r.name);
    expect(parseKeywords(["flamingo"])[0]!.indexPattern).toBe("%flami%ngo%");
    expect(names).not.toContain("text-4"); // "flaming tango": matches %flami%ngo%, holds no flamingo
    expect(names).toEqual(expect.arrayContaining(["text-1", "text-2", "text-3", "body-1", "body-2", "body-3"]));
  });
});
