-- Facts: one record per fact, with a review lifecycle (draft -> confirmed ->
-- deprecated) and an append-only history of every version and every event.
-- The service checks every rule first and explains it; these constraints and
-- triggers are the backstop that holds even against a buggy caller.

-- Orders listings "most recently changed first" with an exact, unique key
-- (timestamps can tie and lose precision in a cursor).
create sequence fact_change_seq;

create table facts (
  id bigint generated always as identity primary key,
  scope text not null
    constraint facts_scope_format check (am_valid_scope(scope) and scope <> '*'),
  name text not null
    constraint facts_name_format check (name ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and char_length(name) <= 64),
  -- One line: no line breaks or other control characters.
  description text not null
    constraint facts_description_format check (
      char_length(description) between 1 and 200
      and description ~ '\S'
      and description !~ '[\x01-\x1f\x7f-\x9f\u2028\u2029]'),
  type text not null
    constraint facts_type check (type in ('feedback', 'project', 'reference')),
  -- The configured limit (FACT_BODY_MAX_CHARS) is enforced by the service; this
  -- is the ceiling of that setting.
  body text not null
    constraint facts_body_length check (char_length(body) between 1 and 1000000 and body ~ '\S'),
  status text not null default 'draft'
    constraint facts_status check (status in ('draft', 'confirmed', 'deprecated')),
  version integer not null default 1
    constraint facts_version_positive check (version >= 1),
  -- The author of the current version.
  author_id bigint not null references agents (id),
  created_at timestamptz not null default now(),
  -- When the content last changed (a new version); promotions set status_at.
  updated_at timestamptz not null default now(),
  -- The last promotion of the current version: who, when, why. A new version
  -- clears them (it is a draft again). Kept here so that recall shows the
  -- deprecation reason without reading the history.
  status_by_id bigint references agents (id),
  status_at timestamptz,
  status_reason text,
  change_seq bigint not null default nextval('fact_change_seq'),
  constraint facts_name_unique unique (name, scope),
  constraint facts_change_seq_unique unique (change_seq),
  constraint facts_draft_unpromoted check ((status = 'draft') = (status_by_id is null)),
  constraint facts_promotion_complete check (
    (status_by_id is null and status_at is null and status_reason is null)
    or (status_by_id is not null and status_at is not null and status_reason is not null)),
  -- The self-approval guard: nobody confirms the version they wrote.
  constraint facts_no_self_approval check (status <> 'confirmed' or status_by_id <> author_id)
);

-- Keyword search: one trigram index over everything recall matches, so that
-- `text ILIKE ANY(array of '%keyword%')` runs as a bitmap index scan in any
-- script (trigrams need no word boundaries, so Japanese/Korean/Chinese work).
-- Keywords are single-line, so the newline separator keeps a keyword from
-- matching across two fields. Queries must repeat this expression exactly.
create index facts_search_trgm on facts
  using gin (((name || E'\n' || description || E'\n' || body)) gin_trgm_ops);

-- Listings, newest change first; the review queue filters on status.
create index facts_status_change_seq on facts (status, change_seq);

create table fact_versions (
  fact_id bigint not null references facts (id),
  version integer not null
    constraint fact_versions_version_positive check (version >= 1),
  description text not null,
  type text not null,
  body text not null,
  author_id bigint not null references agents (id),
  created_at timestamptz not null default now(),
  primary key (fact_id, version)
);

create table fact_events (
  id bigint generated always as identity primary key,
  fact_id bigint not null,
  -- The version the event happened to.
  version integer not null,
  kind text not null
    constraint fact_events_kind check (kind in ('created', 'updated', 'confirmed', 'deprecated')),
  actor_id bigint not null references agents (id),
  at timestamptz not null default now(),
  from_status text
    constraint fact_events_from_status check (from_status in ('draft', 'confirmed', 'deprecated')),
  to_status text not null
    constraint fact_events_to_status check (to_status in ('draft', 'confirmed', 'deprecated')),
  reason text
    constraint fact_events_reason_length check (reason is null or (char_length(reason) between 1 and 2000 and reason ~ '\S')),
  foreign key (fact_id, version) references fact_versions (fact_id, version),
  -- A promotion always says why; a new version never carries a reason.
  constraint fact_events_reason_given check ((kind in ('confirmed', 'deprecated')) = (reason is not null)),
  constraint fact_events_shape check (
    (kind = 'created' and from_status is null and to_status = 'draft')
    or (kind = 'updated' and from_status is not null and to_status = 'draft')
    or (kind = 'confirmed' and from_status = 'draft' and to_status = 'confirmed')
    or (kind = 'deprecated' and from_status in ('draft', 'confirmed') and to_status = 'deprecated'))
);

create index fact_events_fact on fact_events (fact_id, id);

-- History is never rewritten.
create function am_reject_history_change() returns trigger
  language plpgsql as $$
begin
  raise exception '% is append-only: history rows cannot be changed or deleted', tg_table_name
    using errcode = 'P0001';
end $$;

create trigger fact_versions_append_only before update or delete on fact_versions
  for each row execute function am_reject_history_change();
create trigger fact_versions_no_truncate before truncate on fact_versions
  for each statement execute function am_reject_history_change();
create trigger fact_events_append_only before update or delete on fact_events
  for each row execute function am_reject_history_change();
create trigger fact_events_no_truncate before truncate on fact_events
  for each statement execute function am_reject_history_change();

-- The lifecycle on the current row: identity never changes, a new version is
-- exactly one more and starts as a draft, and a status change follows the
-- allowed transitions.
create function am_check_fact_change() returns trigger
  language plpgsql as $$
begin
  if new.id <> old.id or new.name <> old.name or new.scope <> old.scope or new.created_at <> old.created_at then
    raise exception 'a fact''s id, name, scope and creation time never change' using errcode = 'P0001';
  end if;
  if new.version <> old.version then
    if new.version <> old.version + 1 or new.status <> 'draft' then
      raise exception 'a new version of a fact must be version % and a draft', old.version + 1 using errcode = 'P0001';
    end if;
  elsif new.status <> old.status then
    if not ((old.status = 'draft' and new.status in ('confirmed', 'deprecated'))
            or (old.status = 'confirmed' and new.status = 'deprecated')) then
      raise exception 'a fact cannot go from % to %', old.status, new.status using errcode = 'P0001';
    end if;
  elsif row(new.description, new.type, new.body, new.author_id) is distinct from row(old.description, old.type, old.body, old.author_id) then
    raise exception 'changed content must be stored as a new version' using errcode = 'P0001';
  end if;
  return new;
end $$;

create trigger facts_lifecycle before update on facts
  for each row execute function am_check_fact_change();

create trigger facts_no_truncate before truncate on facts
  for each statement execute function am_reject_history_change();
