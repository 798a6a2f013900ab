// The benchmark corpus written straight into a migrated database, one INSERT per
// 5,000 facts (minutes faster than through memory_store, which the facts
// section of `npm run bench` times on the corpus's last facts). The newest fact
// is the last generated. Each fact gets the CJK words the service would give
// it (factWordsParams), as memory_store and an import write them.
import type { Queryable } from "../../src/db/core/database.js";
import { factWordsParams } from "../../src/facts/cjk-words.js";
import { generateFact } from "./corpus.js";

/**
 * Facts 0 to `count` (all by default) of a corpus of `total`. `scope`: every
 * fact in that scope instead of the corpus's own.
 */
export async function insertCorpus(db: Queryable, total: number, authorId: number, options: { scope?: string; count?: number } = {}): Promise<void> {
  const { scope, count = total } = options;
  for (let s = 0; s < count; s += 5000) {
    const batch = Array.from({ length: Math.min(5000, count - s) }, (_, j) => generateFact(s + j, total));
    const words = batch.map((f) => factWordsParams(f.name, f.description, f.body));
    await db.query(
      `insert into facts (scope, name, description, type, body, author_id, updated_at, search_cjk, search_cjk_head, search_cjk_rules)
       select u.scope, u.name, u.description, u.type, u.body, $6::bigint, now() - ((${total} - ${s} - u.ord) * interval '1 second'),
              array_to_tsvector(array(select jsonb_array_elements_text(u.head || u.body_words))),
              array_to_tsvector(array(select jsonb_array_elements_text(u.head))), u.rules
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $7::jsonb[], $8::jsonb[], $9::text[])
              with ordinality as u(scope, name, description, type, body, head, body_words, rules, ord)`,
      [
        batch.map((f) => scope ?? f.scope),
        batch.map((f) => f.name),
        batch.map((f) => f.description),
        batch.map((f) => f.type),
        batch.map((f) => f.body),
        authorId,
        words.map(([head]) => JSON.stringify(head)),
        words.map(([, body]) => JSON.stringify(body)),
        words.map(([, , rules]) => rules),
      ],
    );
  }
  await db.query("vacuum analyze facts");
}
