-- The hash that chains a ledger event to the one before: SHA-256 of a JSON
-- array of the event's fields and the previous hash, the same bytes the
-- service computes to verify the chain (src/ledger/event.ts). An event of a
-- claim with a reference (ledger_events.claim_ref) hashes it too, after the
-- previous hash, under the tag v2; one without hashes exactly as before, v1.
-- A standard SQL body (bound when created, whatever the search_path of the
-- caller) that stays inlinable.
create or replace function am_ledger_event_hash(
  p_seq bigint, p_kind text, p_action text, p_target text, p_actor text, p_at timestamptz,
  p_evidence text, p_note text, p_reason text, p_claim_expires_at timestamptz, p_prev_hash text, p_claim_ref text)
  returns text
  language sql stable parallel safe
  return encode(sha256(convert_to(
      case when p_claim_ref is null then '["agent-memory/ledger/v1",' else '["agent-memory/ledger/v2",' end || p_seq::text
      || ',' || am_ledger_json_text(p_kind) || ',' || am_ledger_json_text(p_action)
      || ',' || am_ledger_json_text(p_target) || ',' || am_ledger_json_text(p_actor)
      || ',' || am_ledger_json_time(p_at) || ',' || am_ledger_json_text(p_evidence)
      || ',' || am_ledger_json_text(p_note) || ',' || am_ledger_json_text(p_reason)
      || ',' || am_ledger_json_time(p_claim_expires_at) || ',' || am_ledger_json_text(p_prev_hash)
      || case when p_claim_ref is null then '' else ',' || am_ledger_json_text(p_claim_ref) end || ']',
      'UTF8')), 'hex');
