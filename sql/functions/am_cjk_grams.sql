-- The one- and two-character pieces of a text's Chinese, Japanese and Korean
-- runs (Han, Hiragana, Katakana, Hangul, their half-width and compatibility
-- forms): for "猫舌チーム", 猫 舌 チ ー ム 猫舌 舌チ チー ーム (repeats kept: a GIN
-- index keeps each key once). A keyword of one or two such characters holds no
-- trigram, so the trigram indexes cannot narrow its substring search; it is
-- looked up among these pieces instead (recall's facts_cjk_grams, search_nodes'
-- graph_*_cjk_grams): every substring of one or two of these characters is one
-- of them. A keyword is such a keyword when it is among its own pieces, so the
-- two sides decide by this one function. Pieces are taken as written: these
-- scripts have no case, and ILIKE, which checks every candidate, does not fold
-- widths either.
--
-- Built of whole-string operations (one regexp_replace, string_to_array, one
-- unnest of the characters beside their successors): about 0.3 ms for 300
-- characters of Japanese, nothing measurable for English; a set-returning
-- regexp_matches per run took 1.8 ms. PL/pgSQL, not SQL, as am_near_words: a
-- SQL function that cannot be inlined is planned again on every statement that
-- calls it. Indexes hold its results: its body never changes in place
-- (docs/architecture.md).
create or replace function am_cjk_grams(t text) returns text[]
  language plpgsql immutable strict parallel safe
  as $$
declare
  -- The text's characters, every run of other characters one space.
  c text[] := string_to_array(regexp_replace(t, '[^ぁ-ヿㇰ-ㇿ㐀-䶿一-鿿豈-﫿가-힯ᄀ-ᇿ㄰-㆏ｦ-ￜ𠀀-𯿿々〆〇]+', ' ', 'g'), null);
begin
  return array_remove(c, ' ')
      || array(select a || b from unnest(c[1:cardinality(c) - 1], c[2:]) as x(a, b) where a <> ' ' and b <> ' ');
end $$;
