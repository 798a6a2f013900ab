-- Where in the primary's WAL each agent's last write ended, for reads from
-- streaming replicas (src/db/read-router.ts): a replica serves an agent's read
-- only once it has replayed this position, so an agent always reads its own
-- writes, whichever service process answers its next call. Written only when
-- DATABASE_READ_URL is set; read by the token check every call already makes.
create table agent_write_positions (
  agent_id bigint primary key references agents (id) on delete cascade,
  lsn pg_lsn not null,
  written_at timestamptz not null default now()
);
