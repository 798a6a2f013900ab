-- Appends a group of ledger events under one lock of the chain head (agents'
-- writes, grouped by src/ledger/appender.ts, and imports of history), each only
-- if its key is as the writer saw it (p_seen_record_seq, p_seen_claim: the
-- executed record and the claim, am_ledger_claim_version) and, for a new
-- claim, the holder has fewer than p_max_open_claims open. An event whose key
-- changed is skipped (appended false) and the writer decides again. An event
-- is timed by the clock, or, imported, by p_at (and its claim's expiry by
-- p_claim_expires_at instead of p_ttl_seconds). The hash is computed here
-- (am_ledger_event_hash), so the chain is hashed in one place. p_claim_ref is
-- the reference of the claim the event belongs to (a new claim's, for 'set'),
-- kept on the event and, for 'set', on the claim with p_id_required.
--
-- No subtransaction per event: a `begin … exception` block per event would
-- take a transaction id each, and more than 64 overflow the backend's
-- subtransaction cache, which slows every other session's snapshot checks.
-- Events fail only on input the service's own checks let through, so an error
-- rolls the whole call back and the service sends each event of that call
-- again on its own (src/ledger/appender.ts): the bad one fails alone.
-- The answer rows come once at the end; the head is left alone when nothing
-- was appended.
create or replace function am_ledger_append(
  p_kind text[], p_action text[], p_target text[], p_actor_id bigint[], p_actor text[],
  p_evidence text[], p_note text[], p_reason text[], p_ttl_seconds int[], p_claim text[],
  p_seen_record_seq bigint[], p_seen_claim text[], p_max_open_claims int[],
  p_at timestamptz[], p_claim_expires_at timestamptz[], p_claim_ref text[], p_id_required boolean[])
  returns table (idx int, appended boolean, ev_seq bigint, ev_at timestamptz, ev_hash text,
                 ev_claimed_at timestamptz, ev_claim_expires_at timestamptz)
  language plpgsql volatile
  set search_path from current
  as $$
declare
  n int := coalesce(array_length(p_kind, 1), 0);
  v_first_seq bigint;
  v_last_seq bigint;
  v_last_hash text;
  v_key record;
  v_at timestamptz;
  v_expires timestamptz;
  v_hash text;
  -- The answer, one element per event (null seq: not appended).
  r_seq bigint[] := array_fill(null::bigint, array[n]);
  r_at timestamptz[] := array_fill(null::timestamptz, array[n]);
  r_hash text[] := array_fill(null::text, array[n]);
  r_claimed timestamptz[] := array_fill(null::timestamptz, array[n]);
  r_expires timestamptz[] := array_fill(null::timestamptz, array[n]);
  i int;
begin
  select c.last_seq, c.last_hash into strict v_last_seq, v_last_hash from ledger_chain_head c for update;
  v_first_seq := v_last_seq;
  for i in 1 .. n loop
    -- Each statement takes a fresh snapshot (READ COMMITTED): it sees what the
    -- writer we may have waited for committed, and the events appended above.
    v_at := coalesce(p_at[i], date_trunc('milliseconds', clock_timestamp()));
    select (select r.seq from ledger_records r where r.action = p_action[i] and r.target = p_target[i]) as record_seq,
           c.claimed_at,
           am_ledger_claim_version(c.holder_id, c.claimed_at, c.expires_at) as claim_version,
           case when p_max_open_claims[i] is not null
                then (select count(*) from ledger_claims o where o.holder_id = p_actor_id[i] and o.expires_at > v_at) end as open_claims
      into v_key
      from (select 1) as one
      left join ledger_claims c on c.action = p_action[i] and c.target = p_target[i];
    if v_key.record_seq is distinct from p_seen_record_seq[i] or v_key.claim_version is distinct from p_seen_claim[i]
       or (p_max_open_claims[i] is not null and v_key.open_claims >= p_max_open_claims[i]) then
      continue;
    end if;
    v_expires := coalesce(p_claim_expires_at[i], v_at + make_interval(secs => p_ttl_seconds[i]));
    v_hash := am_ledger_event_hash(v_last_seq + 1, p_kind[i], p_action[i], p_target[i], p_actor[i], v_at,
                                   p_evidence[i], p_note[i], p_reason[i], v_expires, v_last_hash, p_claim_ref[i]);
    insert into ledger_events (seq, kind, action, target, actor_id, actor, at, evidence, note, reason, claim_expires_at, prev_hash, hash, claim_ref)
      values (v_last_seq + 1, p_kind[i], p_action[i], p_target[i], p_actor_id[i], p_actor[i], v_at,
              p_evidence[i], p_note[i], p_reason[i], v_expires, v_last_hash, v_hash, p_claim_ref[i]);
    if p_claim[i] = 'set' then
      r_claimed[i] := v_at;
      insert into ledger_claims as c (action, target, holder_id, holder, claimed_at, expires_at, claim_ref, id_required)
        values (p_action[i], p_target[i], p_actor_id[i], p_actor[i], v_at, v_expires, p_claim_ref[i], coalesce(p_id_required[i], false))
        on conflict (action, target) do update
          set holder_id = excluded.holder_id, holder = excluded.holder, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at,
              claim_ref = excluded.claim_ref, id_required = excluded.id_required;
    elsif p_claim[i] = 'renew' then
      r_claimed[i] := v_key.claimed_at;
      update ledger_claims c set expires_at = v_expires where c.action = p_action[i] and c.target = p_target[i];
    elsif p_claim[i] = 'drop' then
      delete from ledger_claims c where c.action = p_action[i] and c.target = p_target[i];
    elsif p_claim[i] <> 'keep' then
      raise exception 'am_ledger_append: unknown claim effect %', p_claim[i];
    end if;
    -- Only now, with the event and its claim change in place, does the chain move on.
    v_last_seq := v_last_seq + 1;
    v_last_hash := v_hash;
    r_seq[i] := v_last_seq;
    r_at[i] := v_at;
    r_hash[i] := v_hash;
    r_expires[i] := v_expires;
  end loop;
  if v_last_seq <> v_first_seq then
    update ledger_chain_head c set last_seq = v_last_seq, last_hash = v_last_hash;
  end if;
  return query
    select g.k, r_seq[g.k] is not null, r_seq[g.k], r_at[g.k], r_hash[g.k], r_claimed[g.k], r_expires[g.k]
      from generate_series(1, n) as g(k);
end $$;
