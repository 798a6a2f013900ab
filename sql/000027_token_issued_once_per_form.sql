-- A token form sent twice issues one token (new-user trial: reloading the
-- console page that showed a new token sent the form again, and a second live
-- token was issued that nobody had seen). Each rendering of the console's
-- "Issue a token" form carries a random key; the token it issued keeps the
-- key's sha256, and a second insert with the same key is refused by this
-- unique index, under any number of workers. Tokens issued elsewhere (the CLI)
-- have none.
alter table agent_tokens add column issue_key text
  constraint agent_tokens_issue_key_format check (issue_key ~ '^[0-9a-f]{64}$');
create unique index agent_tokens_issue_key on agent_tokens (issue_key);
