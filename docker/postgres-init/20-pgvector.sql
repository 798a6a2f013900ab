-- Runs once, when the compose file's Postgres initialises an empty volume, as
-- its superuser (creating an extension needs one): recall by meaning's vectors
-- compare through pgvector, which the compose file's image has (docs/recall.md).
create extension if not exists vector;
