-- The key that seals memory_list's cursors (review of the bounded scans,
-- 000025: a cursor that stops at the scan's bound points at the last fact the
-- scan read, which may be in a scope the caller cannot read; in the clear, a
-- cursor showed that fact's change order or review time and id, and an edited
-- one listed positions of facts the caller may not see). Cursors are now
-- encrypted and authenticated with this key (AES-256-GCM, src/paging.ts): opaque,
-- and refused when altered. One key for every replica, made here once: 64 hex
-- digits from two random UUIDs (244 random bits).
create table am_cursor_key (
  id boolean primary key default true constraint am_cursor_key_single_row check (id),
  key text not null constraint am_cursor_key_format check (key ~ '^[0-9a-f]{64}$')
);
insert into am_cursor_key (key) values (replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
