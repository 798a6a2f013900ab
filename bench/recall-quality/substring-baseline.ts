// A plain substring recall, the baseline the quality section scores the
// service's recall against on the same facts (the search most memory servers
// offer, the reference's included): each keyword a literal substring (ILIKE
// ANY over the trigram index), ranked by where it matched, status and recency.
// $1 patterns, $2/$3 readable scopes, $4 type, $5 status, $6 scope, $7 limit.
import { likePattern } from "../../src/text.js";

export const SUBSTRING_RECALL = `
  with hits as (
    select f.id,
           (f.name || E'\\n' || f.description) ilike any($1::text[]) as head_hit,
           case f.status when 'confirmed' then 0 when 'draft' then 1 else 2 end as status_rank,
           f.updated_at,
           count(*) over () as total
      from facts f
     where (f.name || E'\\n' || f.description || E'\\n' || f.body) ilike any($1::text[])
       and ($2::boolean or f.scope = any($3::text[]))
       and ($4::text is null or f.type = $4::text)
       and ($5::text is null or f.status = $5::text)
       and ($6::text is null or f.scope = $6::text)
     order by head_hit desc, status_rank, f.updated_at desc, f.id desc
     limit $7::int
  )
  select f.name, f.scope, am_fact_search_body(f.body) as body, h.total
    from hits h
    join facts f on f.id = h.id
   order by h.head_hit desc, h.status_rank, h.updated_at desc, h.id desc`;

/** Every keyword a literal substring, quotes included. */
export function substringPatterns(keywords: string[]): string[] {
  const seen = new Set<string>();
  const patterns: string[] = [];
  for (const raw of keywords) {
    const keyword = raw.trim();
    if (seen.has(keyword.toLowerCase())) continue;
    seen.add(keyword.toLowerCase());
    patterns.push(likePattern(keyword));
  }
  return patterns;
}
