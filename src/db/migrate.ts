// Forward-only migrations: numbered plain-SQL files in sql/ (000001_name.sql, …),
// applied in order inside one transaction that first takes an advisory lock, so two
// replicas starting at once serialize (the second finds nothing left to do) and a
// failed migration leaves the schema exactly as it was.
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Database, Queryable } from "./database.js";

/** The sql/ folder at the package root, from src/db (tests) and dist/db (built). */
export const SQL_DIR = fileURLToPath(new URL("../../sql/", import.meta.url));

// An arbitrary constant shared by every agent-memory process.
const MIGRATION_LOCK_KEY = 7_311_900_117;

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

export async function loadMigrations(dir = SQL_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = /^(\d{6})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!match) throw new Error(`Migration file ${file} must be named NNNNNN_name.sql`);
    const id = Number(match[1]);
    if (id !== migrations.length + 1) throw new Error(`Migration ${file} breaks the sequence: expected number ${migrations.length + 1}`);
    migrations.push({ id, name: match[2]!, sql: await readFile(`${dir}/${file}`, "utf8") });
  }
  return migrations;
}

const CREATE_TABLE = `
  create table if not exists schema_migrations (
    id integer primary key,
    name text not null,
    applied_at timestamptz not null default now()
  )`;

export interface MigrationReport {
  applied: string[];
  current: number;
}

export async function migrate(db: Database, migrations?: Migration[]): Promise<MigrationReport> {
  const all = migrations ?? (await loadMigrations());
  return db.transaction(
    async (tx) => {
      await tx.query("select pg_advisory_xact_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
      // Created only when missing: a service role without DDL rights (compose's
      // agent_memory) must start on a current schema, and Postgres checks the
      // schema's CREATE privilege even for "create table if not exists".
      const present = (await tx.query<{ ok: boolean }>("select to_regclass('schema_migrations') is not null as ok")).rows[0]?.ok;
      if (!present) await tx.query(CREATE_TABLE);
      const done = new Set((await tx.query<{ id: number }>("select id from schema_migrations")).rows.map((r) => r.id));
      const applied: string[] = [];
      for (const m of all) {
        if (done.has(m.id)) continue;
        await tx.exec(m.sql);
        await tx.query("insert into schema_migrations (id, name) values ($1, $2)", [m.id, m.name]);
        applied.push(`${String(m.id).padStart(6, "0")}_${m.name}`);
      }
      return { applied, current: all.length };
    },
    // Another replica may be mid-migration; wait for it rather than fail fast.
    { lockTimeoutMs: 120_000, statementTimeoutMs: 600_000 },
  );
}

/** For /readyz: true when every migration file has been applied. */
export async function migrationsPending(db: Queryable, expected: number): Promise<number> {
  const exists = await db.query<{ ok: boolean }>("select to_regclass('schema_migrations') is not null as ok");
  if (!exists.rows[0]?.ok) return expected;
  const r = await db.query<{ n: number }>("select count(*)::int as n from schema_migrations");
  return Math.max(0, expected - (r.rows[0]?.n ?? 0));
}
