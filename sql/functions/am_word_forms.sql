-- A word's plural and singular forms (English), of 4 characters or more (the
-- shortest word the vocabulary holds), without the word itself. PL/pgSQL so that
-- its plan is kept for the connection (am_near_words).
create or replace function am_word_forms(w text) returns text[]
  language plpgsql immutable strict parallel safe
  as $$
begin
  return array(select distinct f
                 from unnest(array[case when w like '%s' then left(w, -1) else w || 's' end,
                                   case when w like '%es' then left(w, -2) end,
                                   case when w ~ '(s|x|z|ch|sh)$' then w || 'es' end]) as f
                where char_length(f) >= 4 and f <> w);
end $$;
