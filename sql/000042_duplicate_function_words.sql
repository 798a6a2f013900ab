-- The duplicate warning compares what facts say, not their function words
-- (issue 15). Until now it compared the trigrams of "name description" as
-- written, and English function words ("the", "of", "before", "to") made
-- facts of one phrasing look alike and rewordings look apart: "owner-search:
-- The search service is owned by the discovery team" was 0.49 like "The
-- payments service is owned by the billing team", while "package-manager-pnpm:
-- Use pnpm as the package manager for this repo, never npm" was 0.38 like
-- "use-pnpm: The repo uses pnpm, not npm". They also cost the most: their
-- trigrams are in nearly every fact, so the index had to step through their
-- long posting lists for every candidate (at 100,000 facts a new fact's
-- lookup took 4.5-7 ms p50, against 1-2 ms without them).
--
-- am_duplicate_text() is "name description" lower-cased, with the words of
-- Postgres's English stop-word list (tsearch_data/english.stop, the 127 words
-- its English text search leaves out) removed. Similarity is pg_trgm's, on
-- that text on both sides, with its own trigram index. On the labelled pairs
-- of test/facts/similar-quality.test.ts (rewordings of one fact and different
-- facts of one topic) it separates them without an error at 0.43, where the
-- text as written makes three at its best threshold (0.5); docs/hygiene.md
-- has the table. The threshold is the service's (SIMILAR_THRESHOLD).
--
-- "not", "no" and "nor" are on the list: "Do not deploy on Fridays" and
-- "Deploy on Fridays" are listed as alike, which for a warning that says "a
-- fact like this exists, read it" is what an agent should see.
--
-- Words as pg_trgm reads them (split at every character that is not a letter
-- or digit; Japanese, Korean and Chinese letters are letters), without the
-- listed ones, joined by spaces: the same trigrams as the text as written,
-- less the function words'.
--
-- A loop over the words, not one regular expression of the 127 words (that
-- cost ~700 µs a row on insert beside facts' other regular expressions: the
-- check constraints, am_near_words()) nor a query over them (~100 µs a call,
-- against ~8 µs). The list is one literal: built by concatenation, it was
-- parsed again on every call (array input is not folded), ~100 µs too.
create function am_duplicate_text(p_head text) returns text
  language plpgsql immutable strict parallel safe
  as $$
declare
  v_word text;
  v_text text := '';
begin
  foreach v_word in array regexp_split_to_array(lower(p_head), '[^[:alnum:]]+') loop
    if v_word <> '' and not (v_word = any ('{i,me,my,myself,we,our,ours,ourselves,you,your,yours,yourself,yourselves,
      he,him,his,himself,she,her,hers,herself,it,its,itself,they,them,their,theirs,
      themselves,what,which,who,whom,this,that,these,those,am,is,are,was,were,
      be,been,being,have,has,had,having,do,does,did,doing,a,an,the,and,but,if,
      or,because,as,until,while,of,at,by,for,with,about,against,between,into,through,
      during,before,after,above,below,to,from,up,down,in,out,on,off,over,under,
      again,further,then,once,here,there,when,where,why,how,all,any,both,each,
      few,more,most,other,some,such,no,nor,not,only,own,same,so,than,too,very,
      s,t,can,will,just,don,should,now}'::text[])) then
      v_text := v_text || ' ' || v_word;
    end if;
  end loop;
  return ltrim(v_text);
end $$;

-- Kept beside the row (as search_head, 000009): the lookup rechecks each
-- candidate the index proposes, and computing the text again for each cost
-- more than the index scan (near-copies at 100,000 facts: 5.4 of 6.7 ms).
alter table facts
  add column duplicate_text text generated always as (am_duplicate_text(name || ' ' || description)) stored;

create index facts_duplicate_trgm on facts
  using gin (duplicate_text gin_trgm_ops)
  with (gin_pending_list_limit = 64);

-- As 000033, with am_duplicate_text() on both sides; the signature is the
-- same, so a service not yet upgraded calls it unchanged (with its own
-- threshold). A new fact of function words only ("how-to: How to do it.")
-- has no text left to compare: asked for it, the index would hand over every
-- fact (65-72 ms at 50,000), so only its word-for-word copies are looked up,
-- by their similarity as written.
--
-- facts_head_trgm (000011) goes: only this lookup used it (recall's texts are
-- joined by newlines and have their own indexes), and every write paid for it.
create or replace function am_similar_facts(
  p_text text, p_threshold real, p_all boolean, p_scopes text[], p_new_scope text, p_new_name text, p_limit integer, p_description text)
  returns table (id bigint, similarity real)
  language plpgsql
  set enable_seqscan = off
  set plan_cache_mode = force_generic_plan
  as $$
declare
  v_text text := am_duplicate_text(p_text);
begin
  return query
    select c.id, c.similarity
      from (select f.id,
                   case when v_text = '' then similarity(f.name || ' ' || f.description, p_text) else similarity(f.duplicate_text, v_text) end as similarity
              from facts f
             where lower(f.description) = lower(p_description)
               and f.status <> 'deprecated'
               and not (f.scope = p_new_scope and f.name = p_new_name)
               and (p_all or f.scope = any(p_scopes))
             limit 100) c
     order by c.similarity desc, c.id
     limit p_limit;
  if found or v_text = '' then
    return;
  end if;
  perform set_config('pg_trgm.word_similarity_threshold', p_threshold::text, true);
  return query
    with alike as materialized (
      select f.id, f.scope, f.name, f.status = 'deprecated' as withdrawn, similarity(f.duplicate_text, v_text) as similarity
        from facts f
       where v_text <% f.duplicate_text
         and similarity(f.duplicate_text, v_text) >= p_threshold
       limit 100
    )
    select a.id, a.similarity
      from alike a
     where not (a.scope = p_new_scope and a.name = p_new_name)
       and (p_all or a.scope = any(p_scopes))
     order by a.withdrawn, a.similarity desc, a.id
     limit p_limit;
end $$;

drop index facts_head_trgm;
