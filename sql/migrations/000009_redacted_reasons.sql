-- A redaction also blanks the reasons given for the redacted version
-- (am_fact_event_change); every other change to fact_events is still refused.
drop trigger fact_events_append_only on fact_events;
create trigger fact_events_append_only before delete or update on fact_events for each row execute function am_fact_event_change();
