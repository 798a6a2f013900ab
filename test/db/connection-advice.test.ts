// A first connection that fails says what to do, in terms of the setting that
// named the database: `database "x" does not exist` and `connect ECONNREFUSED`
// left a newcomer to guess at createdb or starting Postgres.
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";

/** A port nothing listens on (taken, then freed). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a database that cannot be reached", () => {
  it("missing: names DATABASE_URL and the createdb to run, for the CLI and for serve", async () => {
    const url = "postgres://postgres@127.0.0.1:5432/am_no_such_database";
    const listed = await runCli(["agent", "list"], { DATABASE_URL: url });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toBe(
      'error: The database "am_no_such_database" that DATABASE_URL names does not exist on 127.0.0.1:5432. Create it (createdb -h 127.0.0.1 -p 5432 -U postgres am_no_such_database), or correct DATABASE_URL.\n',
    );
    const served = await runCli(["serve"], { DATABASE_URL: url, PORT: "0" });
    expect(served.code).toBe(1);
    expect(served.stderr).toContain('The database "am_no_such_database" that DATABASE_URL names does not exist on 127.0.0.1:5432. Create it (createdb');
  });

  it("nothing listening: says to start Postgres there or correct DATABASE_URL", async () => {
    const port = await freePort();
    const listed = await runCli(["migrate"], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/memory`, DB_CONNECT_TIMEOUT_MS: "2000" });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toBe(`error: Nothing accepts connections at 127.0.0.1:${port}, where DATABASE_URL points: start Postgres there (or check its port), or correct DATABASE_URL.\n`);
  });
});
