-- A word and every string made by deleting one of its characters: two words
-- one edit apart share one of these (am_near_words).
create or replace function am_word_deletes(w text) returns text[]
  language plpgsql immutable strict parallel safe
  as $$
begin
  return (select array_agg(distinct d)
            from (select w as d
                  union all
                  select left(w, i - 1) || substr(w, i + 1) from generate_series(1, char_length(w)) as i) x);
end $$;
