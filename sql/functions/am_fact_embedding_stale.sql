-- A fact's text changed (an update, a redaction): its vector described the
-- text before and goes in the same transaction; the embedding queue makes the
-- new one (src/facts/embeddings/queue.ts). No path that changes a text can
-- leave a vector of the old one behind.
create or replace function am_fact_embedding_stale() returns trigger
  language plpgsql set search_path from current as $$
begin
  delete from fact_embeddings where fact_id = new.id;
  return null;
end $$;
