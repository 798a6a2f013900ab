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

-- Appends events in order, each only if its key is still as the caller read it:
-- same record (p_seen_record_seq) and same claim (p_seen_claim, from
-- am_ledger_claim_version), and, for a claim that counts against the quota, fewer
-- than p_max_open_claims unexpired claims held by the actor. An event whose key
-- changed is not appended (appended = false): its caller reads again and decides
-- again. Each event sees the ones before it in the same call.
-- Several events per call because the head stays locked until the commit's WAL
-- flush, a few milliseconds on ordinary disks that no shortening of the statement
-- removes: the service sends the writes that arrived while the previous call was
-- in flight together, so they share one lock and one flush (src/ledger/write.ts).
-- An event that fails (a constraint, a unique violation) is rolled back alone
-- and answered with its SQLSTATE and message; the others are kept.
-- p_claim: 'set' makes the actor the holder from now, 'renew' moves the expiry
-- of the actor's claim, 'drop' deletes the key's claim, 'keep' leaves it.
create function am_ledger_append_many(
  p_kind text[], p_action text[], p_target text[], p_actor_id bigint[], p_actor text[],
  p_evidence text[], p_note text[], p_reason text[], p_ttl_seconds int[], p_claim text[],
  p_seen_record_seq bigint[], p_seen_claim text[], p_max_open_claims int[])
  returns table (idx int, appended boolean, ev_seq bigint, ev_at timestamptz, ev_hash text,
                 ev_claimed_at timestamptz, ev_claim_expires_at timestamptz, err_code text, err_message text)
  language plpgsql volatile
  as $$
declare
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
  for i in 1 .. coalesce(array_length(p_kind, 1), 0) loop
    begin
      -- Each statement takes a fresh snapshot (READ COMMITTED): it sees what the
      -- writer we may have waited for committed, and the events appended above.
      v_at := date_trunc('milliseconds', clock_timestamp());
      select r.seq into v_record_seq from ledger_records r where r.action = p_action[i] and r.target = p_target[i];
      select c.claimed_at, am_ledger_claim_version(c.holder_id, c.claimed_at, c.expires_at) as version into v_claim
        from ledger_claims c where c.action = p_action[i] and c.target = p_target[i];
      if v_record_seq is distinct from p_seen_record_seq[i] or v_claim.version is distinct from p_seen_claim[i]
         or (p_max_open_claims[i] is not null
             and (select count(*) from ledger_claims o where o.holder_id = p_actor_id[i] and o.expires_at > v_at) >= p_max_open_claims[i]) then
        return query select i, false, null::bigint, null::timestamptz, null::text, null::timestamptz, null::timestamptz, null::text, null::text;
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
      return query select i, true, v_last_seq, v_at, v_hash, v_claimed, v_expires, null::text, null::text;
    exception when others then
      -- This event's statements are rolled back (the block is a subtransaction); the others stay.
      return query select i, false, null::bigint, null::timestamptz, null::text, null::timestamptz, null::timestamptz, sqlstate::text, sqlerrm::text;
    end;
  end loop;
  update ledger_chain_head c set last_seq = v_last_seq, last_hash = v_last_hash;
end $$;
