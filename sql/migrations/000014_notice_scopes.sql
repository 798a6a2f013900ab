-- The scope of the fact a withdrawal notice is about, kept on the notice: the
-- token check every request makes (src/auth/sql.ts) counts only the notices an
-- agent may see, and must not read facts to do so (a lock on facts would hold
-- every caller's authentication). A fact never changes its scope.
alter table fact_withdrawal_notices add column scope text;
update fact_withdrawal_notices n set scope = f.scope from facts f where f.id = n.fact_id;
alter table fact_withdrawal_notices alter column scope set not null;
