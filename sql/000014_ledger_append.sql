-- A ledger write in one statement (docs/ledger.md, "How a write runs").
--
-- Before: BEGIN; lock the head and read the key; (the service decides and hashes);
-- append; COMMIT: the head stayed locked across three client round trips. Now the
-- service reads the key without a lock, decides, and sends one statement that
-- locks the head, checks that the key is still as it was read, hashes and appends,
-- and commits: the head is held for that statement and the commit, nothing else.

-- The event hash of src/ledger/event.ts (eventHash), byte for byte: sha256 (hex)
-- of the UTF-8 bytes of JSON.stringify([format tag, seq, kind, action, target,
-- actor, at, evidence, note, reason, claim_expires_at, prev_hash]). to_json(text)
-- escapes exactly as JSON.stringify does for text Postgres can hold (", \, \b \f
-- \n \r \t, other controls as lowercase \u00xx; everything else as is); bigint
-- prints as a JS number does below 2^53; timestamps as toISOString (UTC, ms).
-- test/ledger/hash-sql.test.ts compares it with the JS function on both backends.
create function am_ledger_json_text(v text) returns text
  language sql immutable parallel safe
  as $$ select coalesce(to_json(v)::text, 'null') $$;

-- to_char is only stable (locale-dependent patterns), hence stable here.
create function am_ledger_json_time(v timestamptz) returns text
  language sql stable parallel safe
  as $$ select coalesce('"' || to_char(v at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null') $$;

create function am_ledger_event_hash(
  p_seq bigint, p_kind text, p_action text, p_target text, p_actor text, p_at timestamptz,
  p_evidence text, p_note text, p_reason text, p_claim_expires_at timestamptz, p_prev_hash text)
  returns text
  language sql stable parallel safe
  as $$
    select encode(sha256(convert_to(
      '["agent-memory/ledger/v1",' || p_seq::text
      || ',' || am_ledger_json_text(p_kind) || ',' || am_ledger_json_text(p_action)
      || ',' || am_ledger_json_text(p_target) || ',' || am_ledger_json_text(p_actor)
      || ',' || am_ledger_json_time(p_at) || ',' || am_ledger_json_text(p_evidence)
      || ',' || am_ledger_json_text(p_note) || ',' || am_ledger_json_text(p_reason)
      || ',' || am_ledger_json_time(p_claim_expires_at) || ',' || am_ledger_json_text(p_prev_hash) || ']',
      'UTF8')), 'hex')
  $$;

-- What a decision about a key's claim depends on, as exact text (microseconds
-- included: rows edited by hand may hold them). Equal text, same decision.
create function am_ledger_claim_version(p_holder_id bigint, p_claimed_at timestamptz, p_expires_at timestamptz) returns text
  language sql immutable parallel safe
  as $$ select p_holder_id::text || '|' || extract(epoch from p_claimed_at)::text || '|' || extract(epoch from p_expires_at)::text $$;

-- Appends one event if the key is still as the caller read it: same record
-- (p_seen_record_seq) and same claim (p_seen_claim, from am_ledger_claim_version),
-- and, for a claim that counts against the quota, fewer than p_max_open_claims
-- unexpired claims held by the actor. Otherwise appends nothing and answers
-- appended = false: the caller reads again and decides again.
-- p_claim: 'set' makes the actor the holder from now, 'renew' moves the expiry
-- of the actor's claim, 'drop' deletes the key's claim, 'keep' leaves it.
create function am_ledger_append(
  p_kind text, p_action text, p_target text, p_actor_id bigint, p_actor text,
  p_evidence text, p_note text, p_reason text, p_ttl_seconds int, p_claim text,
  p_seen_record_seq bigint, p_seen_claim text, p_max_open_claims int)
  returns table (appended boolean, ev_seq bigint, ev_at timestamptz, ev_hash text, ev_claimed_at timestamptz, ev_claim_expires_at timestamptz)
  language plpgsql volatile
  as $$
declare
  h record;
  v_record_seq bigint;
  v_claim record;
  v_at timestamptz;
  v_expires timestamptz;
  v_claimed timestamptz;
  v_hash text;
begin
  select c.last_seq, c.last_hash into strict h from ledger_chain_head c for update;
  -- Each statement below takes a fresh snapshot (READ COMMITTED): it sees what
  -- the writer we may have waited for committed.
  v_at := date_trunc('milliseconds', clock_timestamp());
  select r.seq into v_record_seq from ledger_records r where r.action = p_action and r.target = p_target;
  select c.claimed_at, am_ledger_claim_version(c.holder_id, c.claimed_at, c.expires_at) as version into v_claim
    from ledger_claims c where c.action = p_action and c.target = p_target;
  if v_record_seq is distinct from p_seen_record_seq or v_claim.version is distinct from p_seen_claim
     or (p_max_open_claims is not null
         and (select count(*) from ledger_claims o where o.holder_id = p_actor_id and o.expires_at > v_at) >= p_max_open_claims) then
    return query select false, null::bigint, null::timestamptz, null::text, null::timestamptz, null::timestamptz;
    return;
  end if;
  v_expires := case when p_ttl_seconds is null then null else v_at + make_interval(secs => p_ttl_seconds) end;
  v_hash := am_ledger_event_hash(h.last_seq + 1, p_kind, p_action, p_target, p_actor, v_at, p_evidence, p_note, p_reason, v_expires, h.last_hash);
  insert into ledger_events (seq, kind, action, target, actor_id, actor, at, evidence, note, reason, claim_expires_at, prev_hash, hash)
    values (h.last_seq + 1, p_kind, p_action, p_target, p_actor_id, p_actor, v_at, p_evidence, p_note, p_reason, v_expires, h.last_hash, v_hash);
  update ledger_chain_head c set last_seq = h.last_seq + 1, last_hash = v_hash;
  if p_claim = 'set' then
    v_claimed := v_at;
    insert into ledger_claims as c (action, target, holder_id, holder, claimed_at, expires_at)
      values (p_action, p_target, p_actor_id, p_actor, v_at, v_expires)
      on conflict (action, target) do update
        set holder_id = excluded.holder_id, holder = excluded.holder, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at;
  elsif p_claim = 'renew' then
    v_claimed := v_claim.claimed_at;
    update ledger_claims c set expires_at = v_expires where c.action = p_action and c.target = p_target;
  elsif p_claim = 'drop' then
    delete from ledger_claims c where c.action = p_action and c.target = p_target;
  elsif p_claim <> 'keep' then
    raise exception 'am_ledger_append: unknown claim effect %', p_claim;
  end if;
  return query select true, h.last_seq + 1, v_at, v_hash, v_claimed, v_expires;
end $$;
