// The token check runs on every request, so on Postgres it is a named prepared
// statement (planned once per connection); the answer is the same either way,
// and a revoked token is still refused on its very next check.
import { beforeAll, describe, expect, it } from "vitest";
import { checkToken } from "../../src/auth/verifier.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent } from "../support/service.js";

describe("token check as a prepared statement on postgres", () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    // One connection: the statement prepared by a check is visible to the next query.
    tdb = await createTestDatabase("postgres", { poolMax: 1 });
  });

  it("is prepared once on the connection and answers as the plain statement would", async () => {
    const agent = await addAgent(tdb.db, "prepared-bot", { scopes: ["shared"] });
    const first = await checkToken(tdb.db, agent.token);
    const second = await checkToken(tdb.db, agent.token);
    expect(first.ok).toBe(true);
    expect(second).toEqual(first);
    const prepared = await tdb.db.query<{ name: string }>("select name from pg_prepared_statements where name = 'am_auth_verify_token'");
    expect(prepared.rows).toEqual([{ name: "am_auth_verify_token" }]);

    await tdb.db.query("update agent_tokens set revoked_at = now() where agent_id = (select id from agents where name = 'prepared-bot')");
    const revoked = await checkToken(tdb.db, agent.token);
    expect(revoked).toEqual({ ok: false, reason: "revoked" });
  });
});
