-- The part of a fact's body that recall searches by substring and corrects
-- typos against: what a recall answer shows of it (RECALL_BODY_CHARS). Longer
-- bodies are matched by their words (search_body) only; word similarity over
-- whole 16,000-character bodies would let a few typo keywords run past the
-- statement timeout (docs/recall.md).
create or replace function am_fact_search_body(p_body text) returns text
  language sql immutable parallel safe
  return left(p_body, 1000);
