-- Recall by meaning (docs/recall.md): one vector per fact, of its current
-- search text (am_fact_search_text) as the configured model embedded it, in a
-- plain real[] column on every database; where pgvector is installed the
-- service adds an approximate index over it (src/facts/embeddings/store.ts).
-- The vector goes when the text it was made of changes (an update, a
-- redaction: am_fact_embedding_stale) and with its fact.
create table fact_embeddings (
    fact_id bigint primary key references facts (id) on delete cascade,
    model text not null,
    dims integer not null,
    embedding real[] not null,
    embedded_at timestamp with time zone default now() not null,
    constraint fact_embeddings_dims check (dims between 1 and 8192 and cardinality(embedding) = dims)
);

-- The model whose vectors fact_embeddings holds, and their dimension, learned
-- from the model's first answer: one row at most.
create table embedding_model (
    only_row boolean primary key default true check (only_row),
    model text not null,
    dims integer not null,
    recorded_at timestamp with time zone default now() not null
);

create trigger facts_embedding_stale after update of name, description, body on facts for each row
  when (old.name is distinct from new.name or old.description is distinct from new.description or old.body is distinct from new.body)
  execute function am_fact_embedding_stale();
