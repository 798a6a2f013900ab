// agent-memory embeddings status | backfill, with the real CLI (in-process) on
// this machine's Postgres, which has no pgvector: a 10,000-fact store is
// embedded through the test endpoint with progress, and status counts it.
import { beforeAll, describe, expect, it } from "vitest";
import { onlyJson, runCli } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { type EmbeddingsServer, startEmbeddingsServer } from "../support/embeddings-server.js";
import { addAgent } from "../support/service.js";

const FACTS = 10_000;

describe("agent-memory embeddings (postgres without pgvector)", () => {
  let tdb: TestDatabase;
  let server: EmbeddingsServer;
  const env = (extra: Record<string, string> = {}) => ({ DATABASE_URL: tdb.url!, EMBEDDINGS_URL: server.url, EMBEDDINGS_MODEL: "test-embed", ...extra });

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    server = await startEmbeddingsServer({ dims: 32 });
    await addAgent(tdb.db, "writer");
    const { id } = (await tdb.db.query<{ id: number }>("select id from agents where name = 'writer'")).rows[0]!;
    await tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'shared', 'note-' || g, 'Note ' || g || ' on the automobile fleet', 'project', 'Service every automobile after ' || g || ' km.', $1::bigint
         from generate_series(1, $2::int) as g`,
      [id, FACTS],
    );
  });

  it("says what is off when recall by meaning is not set up", async () => {
    const result = await runCli(["embeddings", "status"], { DATABASE_URL: tdb.url! });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Recall by meaning is off: set EMBEDDINGS_URL and EMBEDDINGS_MODEL/);
  });

  it("counts what waits, embeds it all with progress, then nothing waits", async () => {
    const before = onlyJson<{ facts: number; embedded: number; waiting: number; search: string; why?: string }>(await runCli(["embeddings", "status", "--json"], env()));
    expect(before).toMatchObject({ facts: FACTS, embedded: 0, waiting: FACTS, search: "exact" });
    expect(before.why).toMatch(/pgvector/);

    const backfill = await runCli(["embeddings", "backfill"], env());
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(backfill.stdout).toMatch(`Embedded ${FACTS} facts with test-embed; ${FACTS} of ${FACTS} have a vector, 0 wait now.`);
    // Not a terminal: a line at most every 5 s, and always the last.
    expect(backfill.stderr.trim().split("\n").at(-1)).toBe(`embedding facts ${FACTS}/${FACTS}`);
    expect(server.texts).toBe(FACTS);

    const after = onlyJson<{ embedded: number; waiting: number; dims: number }>(await runCli(["embeddings", "status", "--json"], env()));
    expect(after).toMatchObject({ embedded: FACTS, waiting: 0, dims: 32 });
    // A second backfill finds nothing to do.
    expect((await runCli(["embeddings", "backfill"], env())).stdout).toMatch(/^Embedded 0 facts/);
    expect(server.texts).toBe(FACTS);
  });

  it("never compares two models: a new one makes every fact wait again", async () => {
    const other = onlyJson<{ model: string; embedded: number; waiting: number }>(await runCli(["embeddings", "status", "--json"], env({ EMBEDDINGS_MODEL: "other-embed" })));
    expect(other).toMatchObject({ model: "test-embed", embedded: 0, waiting: FACTS });
  });
});
