-- Duplicate warning: when a fact is created, memory_store lists up to three
-- readable facts whose name and description are most like the new one's, so
-- that an agent updates the existing fact instead of keeping two copies.
--
-- The trigram index over name + description (not the body: a duplicate is a
-- fact that *says* the same thing, and bodies differ in evidence and wording).
-- Queries must repeat this expression exactly: (name || ' ' || description).
create index facts_head_trgm on facts
  using gin (((name || ' ' || description)) gin_trgm_ops);

-- The similar facts for a text, best first. In a function because the `<%`
-- operator (a form the GIN index can answer) compares against the setting
-- pg_trgm.word_similarity_threshold, not an argument: it is set here for this
-- transaction only. `<%` (word similarity of the text to the fact's head, at
-- least its similarity) finds the candidates through the index and similarity()
-- decides; not `%` itself: its function (similarity_op) answers no row at all
-- in the embedded database (PGlite 0.5.17 in its worker thread), where `<%`,
-- `%>` and similarity() work. The threshold matters for cost as much as for relevance:
-- GIN must read the posting list of every trigram that could decide a match,
-- and at a low threshold that includes the most common ones (measured at
-- 100,000 facts: ~1 s at 0.3, ~2 ms at 0.5; see docs/hygiene.md).
-- Readable scopes come from the authenticated caller, as everywhere.
create function am_similar_facts(
  p_text text, p_threshold real, p_all boolean, p_scopes text[], p_exclude bigint, p_limit integer)
  returns table (id bigint, similarity real)
  language plpgsql
  -- The planner prices similarity() like a comparison, so on a table of
  -- look-alike facts (or with a LIMIT) it prefers to compute it for every row
  -- (a sequential scan of 100,000 facts: ~1 s). The index is the better plan.
  set enable_seqscan = off
  as $$
begin
  perform set_config('pg_trgm.word_similarity_threshold', p_threshold::text, true);
  -- Only the trigram condition inside the CTE: with the scope filter beside it,
  -- the planner scanned the whole (name, scope) index instead and computed the
  -- similarity of every fact. The inner LIMIT bounds the work when a new fact
  -- is like very many (a templated corpus: 1,086 of 100,000 facts above 0.5,
  -- 33,000 index candidates; the limit cut that call's time by 5): the answer
  -- is then the three most similar of the first 100 matches, which is enough
  -- to say "this looks like a duplicate".
  return query
    with alike as materialized (
      select f.id, f.scope, similarity(f.name || ' ' || f.description, p_text) as similarity
        from facts f
       where p_text <% (f.name || ' ' || f.description)
         and similarity(f.name || ' ' || f.description, p_text) >= p_threshold
       limit 100
    )
    select a.id, a.similarity
      from alike a
     where a.id <> p_exclude
       and (p_all or a.scope = any(p_scopes))
     order by a.similarity desc, a.id
     limit p_limit;
end $$;
