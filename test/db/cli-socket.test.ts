// The CLI socket's bounds, in-process on a real embedded database: while a
// connection holds a transaction open, a statement outside it is refused (it
// would wait for the transaction that waits for it, holding the one
// connection every request needs); and a transaction whose request is still
// waiting is rolled back once the idle bound passes, as an idle one is.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectSocketDatabase } from "../../src/db/embedded/cli-socket-client.js";
import { type CliSocket, serveCliSocket } from "../../src/db/embedded/cli-socket-server.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";

const IDLE_MS = 300;

describe("the CLI socket (pglite)", () => {
  let tdb: TestDatabase;
  let dir: string;
  let socket: CliSocket;

  beforeAll(async () => {
    tdb = await createTestDatabase("pglite");
    dir = await mkdtemp(join(tmpdir(), "am-cli-socket-"));
    socket = (await serveCliSocket(tdb.db, dir, IDLE_MS, pino({ level: "silent" })))!;
  });
  afterAll(async () => {
    await socket?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const actions = async () => (await tdb.db.query<{ action: string }>("select action from ledger_actions order by action")).rows.map((r) => r.action);

  it("refuses a statement outside the connection's open transaction, and the service answers meanwhile", async () => {
    const cli = (await connectSocketDatabase(join(dir, "cli.sock")))!;
    try {
      await cli.transaction(async (tx) => {
        await tx.query("insert into ledger_actions (action, scope, set_by) values ('kept_one', 'ops', 'test')");
        await expect(cli.query("select 1")).rejects.toThrow(/a transaction is open on this connection/);
        // The service's own statements wait only for the transaction's, which goes on.
        await tx.query("select 1");
      });
      expect(await actions()).toContain("kept_one");
    } finally {
      await cli.close();
    }
  });

  it("rolls back a transaction whose statement is still waiting once the idle bound passes", async () => {
    const cli = (await connectSocketDatabase(join(dir, "cli.sock")))!;
    await expect(
      cli.transaction(async (tx) => {
        await tx.query("insert into ledger_actions (action, scope, set_by) values ('stuck_one', 'ops', 'test')");
        await tx.query(`select pg_sleep(${(IDLE_MS * 4) / 1000})`);
      }),
    ).rejects.toThrow(/closed the connection/);
    expect(await actions()).not.toContain("stuck_one");
  });
});
