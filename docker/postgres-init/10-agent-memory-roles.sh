#!/bin/sh
# Runs once, when the compose file's Postgres initialises an empty volume.
# Creates the roles agent-memory uses (see sql/roles.sql and docs/security.md):
#   agent_memory_owner  owns the schema; only migrations act as it
#   agent_memory        the running service: reads and writes rows, owns nothing
set -eu
: "${AGENT_MEMORY_DB_PASSWORD:?set AGENT_MEMORY_DB_PASSWORD in .env}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v owner_role=agent_memory_owner -v app_role=agent_memory -v app_password="$AGENT_MEMORY_DB_PASSWORD" \
  -f /docker-entrypoint-initdb.d/sql/roles.sql
