// What one create_entities statement costs, and which part of the schema it pays
// for: CREATE_ENTITIES alone (no HTTP, no MCP, no commit of a tool call: one
// statement on one connection, autocommit), loading a fresh database, once per
// variant, in the order given:
//   node --no-warnings --import tsx bench/graph-load-sql.ts [V=now,notrgm,bigpending,nofast,nofk,bare] [N=1000] [CORPUS=sprint|mixed]
// now: the schema as migrated; notrgm: without the three trigram indexes;
// bigpending: their GIN pending lists at 4 MB instead of 256 kB; nofast: with
// fastupdate off; nofk: without the foreign keys; bare: neither trigram
// indexes nor foreign keys. Run "now" twice (first and last) to see the noise.
import { migrate } from "../src/db/migrate.js";
import { openPostgres } from "../src/db/postgres.js";
import * as sql from "../src/graph/sql.js";
import { CORPORA } from "./lib/graph-corpus.js";
import { createDatabase } from "./lib/service.js";

const corpus = CORPORA[process.env.CORPUS ?? "sprint"]!;
const TRIGRAM_INDEXES = ["graph_entities_scope_name_trgm", "graph_entities_scope_type_trgm", "graph_observations_scope_content_trgm"];
const FOREIGN_KEYS = `alter table graph_entities drop constraint graph_entities_created_by_fkey;
  alter table graph_observations drop constraint graph_observations_created_by_fkey;
  alter table graph_observations drop constraint graph_observations_entity_scope`;
const VARIANTS: Record<string, string> = {
  now: "",
  notrgm: `drop index ${TRIGRAM_INDEXES.join(", ")}`,
  bigpending: TRIGRAM_INDEXES.map((i) => `alter index ${i} set (gin_pending_list_limit = 4096)`).join("; "),
  nofast: TRIGRAM_INDEXES.map((i) => `alter index ${i} set (fastupdate = off)`).join("; "),
  nofk: FOREIGN_KEYS,
  bare: `${FOREIGN_KEYS}; drop index ${TRIGRAM_INDEXES.join(", ")}`,
};
const n = Number(process.env.N ?? 1000);
for (const v of (process.env.V ?? "now,notrgm,nofk,bare,now").split(",")) {
  if (!(v in VARIANTS)) throw new Error(`Unknown variant ${v}: one of ${Object.keys(VARIANTS).join(", ")}`);
  const database = await createDatabase(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres", "am_graph_load_sql");
  const db = openPostgres({ connectionString: database.url, poolMax: 1, connectTimeoutMs: 5000, statementTimeoutMs: 600_000, lockTimeoutMs: 3000 });
  try {
    await migrate(db);
    const agent = (await db.query<{ id: number }>("insert into agents (name) values ('loader') returning id")).rows[0]!.id;
    if (VARIANTS[v]) await db.exec(VARIANTS[v]);
    let ms = 0;
    let batches = 0;
    for (let i = 0; i < n; i += corpus.batch) {
      const entities = Array.from({ length: Math.min(corpus.batch, n - i) }, (_, k) => corpus.entity(i + k, n));
      const obsEntity: number[] = [];
      const obsContent: string[] = [];
      entities.forEach((e, j) => e.observations.forEach((c) => (obsEntity.push(j + 1), obsContent.push(c))));
      const t0 = performance.now();
      await db.query(sql.CREATE_ENTITIES, ["bench", entities.map((e) => e.name), entities.map((e) => e.entityType), agent, obsEntity, obsContent], { prepareAs: "bench_create_entities" });
      ms += performance.now() - t0;
      batches++;
    }
    console.log(`${v.padEnd(10)} ${n.toLocaleString("en-US")} entities: ${(ms / batches).toFixed(2)} ms per statement of ${corpus.batch}, ${Math.round((n / ms) * 1000).toLocaleString("en-US")} entities/s`);
  } finally {
    await db.close();
    await database.drop();
  }
}
