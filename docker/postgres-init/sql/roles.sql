-- The database roles of agent-memory under docker compose (psql variables:
-- owner_role, app_role, app_password). Run by 10-agent-memory-roles.sh as the
-- image's superuser, in the service's database, once.
--
-- owner_role  NOLOGIN. Owns the database and the public schema, so every table,
--             trigger and function the migrations create is its. The one-shot
--             `migrate` service connects as the superuser with
--             options=-c role=<owner_role>, i.e. acts as this role.
-- app_role    LOGIN, what the running service uses: select/insert/update/delete
--             on rows, nothing else. Not an owner, so it cannot drop or disable
--             the ledger's append-only triggers, alter tables or truncate.
create role :"owner_role" nologin;
create role :"app_role" login password :'app_password' nosuperuser nocreatedb nocreaterole noreplication;

select format('alter database %I owner to %I', current_database(), :'owner_role') \gexec
alter schema public owner to :"owner_role";
revoke all on schema public from public;
grant usage on schema public to :"app_role";
revoke create on database :"DBNAME" from public;
grant connect on database :"DBNAME" to :"app_role";

-- Whatever the migrations create later is usable, not owned, by the service.
alter default privileges for role :"owner_role" in schema public grant select, insert, update, delete on tables to :"app_role";
alter default privileges for role :"owner_role" in schema public grant usage, select on sequences to :"app_role";
