-- The grouped ledger append without a subtransaction per event (issue 16, part 5).
--
-- am_ledger_append_many (000016) wrapped each event of a call in a PL/pgSQL
-- `begin … exception` block, so that an event that failed was rolled back alone.
-- Each such block is a subtransaction; each one that writes takes its own
-- transaction id, and a call of more than 64 of them overflows the backend's
-- subtransaction cache, which makes every other session's snapshot checks slower.
-- Events only fail on input the service's own checks let through (constraints,
-- data exceptions), so the isolation is now paid only when one does: the call
-- runs without subtransactions, an error rolls the whole call back, and the
-- service sends each event of that call again in a call of its own, in order
-- (src/ledger/appender.ts). The event that fails then fails alone and the others
-- are appended, each decided under the head lock as before.
--
-- Otherwise unchanged: same arguments, same checks under the lock, same hash, same
-- rows, minus the err_code/err_message columns (an event's error is now the
-- statement's error). The head is left alone when nothing was appended.
drop function am_ledger_append_many(text[], text[], text[], bigint[], text[], text[], text[], text[], int[], text[], bigint[], text[], int[]);

create function am_ledger_append_many(
  p_kind text[], p_action text[], p_target text[], p_actor_id bigint[], p_actor text[],
  p_evidence text[], p_note text[], p_reason text[], p_ttl_seconds int[], p_claim text[],
  p_seen_record_seq bigint[], p_seen_claim text[], p_max_open_claims int[])
  returns table (idx int, appended boolean, ev_seq bigint, ev_at timestamptz, ev_hash text,
                 ev_claimed_at timestamptz, ev_claim_expires_at timestamptz)
  language plpgsql volatile
  as $$
declare
  v_first_seq bigint;
  v_last_seq bigint;
  v_last_hash text;
  v_record_seq bigint;
  v_claim record;
  v_at timestamptz;
  v_expires timestamptz;
  v_claimed timestamptz;
  v_hash text;
  i int;
begin
  select c.last_seq, c.last_hash into strict v_last_seq, v_last_hash from ledger_chain_head c for update;
  v_first_seq := v_last_seq;
  for i in 1 .. coalesce(array_length(p_kind, 1), 0) loop
    -- Each statement takes a fresh snapshot (READ COMMITTED): it sees what the
    -- writer we may have waited for committed, and the events appended above.
    v_at := date_trunc('milliseconds', clock_timestamp());
    select r.seq into v_record_seq from ledger_records r where r.action = p_action[i] and r.target = p_target[i];
    select c.claimed_at, am_ledger_claim_version(c.holder_id, c.claimed_at, c.expires_at) as version into v_claim
      from ledger_claims c where c.action = p_action[i] and c.target = p_target[i];
    if v_record_seq is distinct from p_seen_record_seq[i] or v_claim.version is distinct from p_seen_claim[i]
       or (p_max_open_claims[i] is not null
           and (select count(*) from ledger_claims o where o.holder_id = p_actor_id[i] and o.expires_at > v_at) >= p_max_open_claims[i]) then
      return query select i, false, null::bigint, null::timestamptz, null::text, null::timestamptz, null::timestamptz;
      continue;
    end if;
    v_expires := case when p_ttl_seconds[i] is null then null else v_at + make_interval(secs => p_ttl_seconds[i]) end;
    v_hash := am_ledger_event_hash(v_last_seq + 1, p_kind[i], p_action[i], p_target[i], p_actor[i], v_at,
                                   p_evidence[i], p_note[i], p_reason[i], v_expires, v_last_hash);
    insert into ledger_events (seq, kind, action, target, actor_id, actor, at, evidence, note, reason, claim_expires_at, prev_hash, hash)
      values (v_last_seq + 1, p_kind[i], p_action[i], p_target[i], p_actor_id[i], p_actor[i], v_at,
              p_evidence[i], p_note[i], p_reason[i], v_expires, v_last_hash, v_hash);
    v_claimed := null;
    if p_claim[i] = 'set' then
      v_claimed := v_at;
      insert into ledger_claims as c (action, target, holder_id, holder, claimed_at, expires_at)
        values (p_action[i], p_target[i], p_actor_id[i], p_actor[i], v_at, v_expires)
        on conflict (action, target) do update
          set holder_id = excluded.holder_id, holder = excluded.holder, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at;
    elsif p_claim[i] = 'renew' then
      v_claimed := v_claim.claimed_at;
      update ledger_claims c set expires_at = v_expires where c.action = p_action[i] and c.target = p_target[i];
    elsif p_claim[i] = 'drop' then
      delete from ledger_claims c where c.action = p_action[i] and c.target = p_target[i];
    elsif p_claim[i] <> 'keep' then
      raise exception 'am_ledger_append_many: unknown claim effect %', p_claim[i];
    end if;
    -- Only now, with the event and its claim change in place, does the chain move on.
    v_last_seq := v_last_seq + 1;
    v_last_hash := v_hash;
    return query select i, true, v_last_seq, v_at, v_hash, v_claimed, v_expires;
  end loop;
  if v_last_seq <> v_first_seq then
    update ledger_chain_head c set last_seq = v_last_seq, last_hash = v_last_hash;
  end if;
end $$;
