-- Recall's substring and typo indexes, and the trigger that keeps the
-- vocabulary, are built on am_fact_search_text (a fact's search text, in one
-- function): the same entries as before, now depending on the function, so the
-- migrator can refuse a change to it that would leave them wrong.
drop index facts_exact_trgm;
create index facts_exact_trgm on facts using gin (scope, am_fact_search_text(name, description, body) gin_trgm_ops) with (gin_pending_list_limit = '64');
drop index facts_near_words;
create index facts_near_words on facts using gin (scope, am_near_words(am_fact_search_text(name, description, body))) with (gin_pending_list_limit = '64');
drop trigger facts_words_update on facts;
create trigger facts_words_update after update of scope, name, description, body on facts for each row
  when (old.scope is distinct from new.scope
        or am_fact_search_text(old.name, old.description, old.body) is distinct from am_fact_search_text(new.name, new.description, new.body))
  execute function am_fact_words();
