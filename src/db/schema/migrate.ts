// The schema, applied at start-up in one transaction that first takes an
// advisory lock, so two replicas starting at once serialize (the second finds
// nothing left to do) and a failure leaves the schema exactly as it was:
// - sql/functions/<name>.sql: each SQL function's current body (sql-functions.ts),
//   applied before the pending migrations, so that a migration may use what it
//   defines; a function whose file is gone is dropped after them.
// - sql/migrations/NNNNNN_name.sql: tables, indexes and data, forward-only,
//   from one baseline.
import { readdir, readFile } from "node:fs/promises";
import type { Database, Queryable } from "../core/database.js";
import { applyFunctions, checkOneEach, CREATE_FUNCTIONS, dropGoneFunctions, execFile, loadFunctions, SQL_DIR, type SqlFunction } from "./sql-functions.js";

const MIGRATIONS_DIR = `${SQL_DIR}migrations/`;

// An arbitrary constant shared by every agent-memory process.
const MIGRATION_LOCK_KEY = 7_311_900_117;

/**
 * Before the baseline the schema was 44 numbered migrations (000001_agents …
 * 000044_duplicate_japanese_chinese), which the baseline holds. A database at
 * the last of them is marked as at the baseline. (A development build added a
 * 45th, graph_entity_bounds, which is the migration after the baseline now.)
 */
const PRE_BASELINE = { firstName: "agents", last: { id: 44, name: "duplicate_japanese_chinese" }, later: { graph_entity_bounds: 2 } as Record<string, number> };

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = /^(\d{6})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!match) throw new Error(`Migration file ${file} must be named NNNNNN_name.sql`);
    const id = Number(match[1]);
    if (id !== migrations.length + 1) throw new Error(`Migration ${file} breaks the sequence: expected number ${migrations.length + 1}`);
    migrations.push({ id, name: match[2]!, sql: await readFile(`${dir}${file}`, "utf8") });
  }
  return migrations;
}

const CREATE_MIGRATIONS = `
  create table if not exists schema_migrations (
    id integer primary key,
    name text not null,
    applied_at timestamptz not null default now()
  )`;

interface MigrationReport {
  /** Migrations applied now, as NNNNNN_name. */
  applied: string[];
  /** Function files applied now (new or changed), and functions dropped with their file. */
  functions: { applied: string[]; dropped: string[] };
  /** Migrations the schema is at. */
  current: number;
}

/** Creates a bookkeeping table unless present: a role without DDL rights must still start on a current schema. */
async function ensureTable(tx: Queryable, name: string, ddl: string): Promise<void> {
  const present = (await tx.query<{ ok: boolean }>("select to_regclass($1) is not null as ok", [name])).rows[0]?.ok;
  if (!present) await tx.query(ddl);
}

/** A database migrated before the baseline: marked as at it (and at what followed), or refused. */
async function markPreBaseline(tx: Queryable, migrations: Migration[]): Promise<void> {
  const rows = (await tx.query<{ id: number; name: string }>("select id, name from schema_migrations order by id")).rows;
  if (rows[0]?.name !== PRE_BASELINE.firstName) return;
  const last = rows.find((r) => r.id === PRE_BASELINE.last.id);
  if (last?.name !== PRE_BASELINE.last.name) {
    const at = rows[rows.length - 1]!;
    throw new Error(
      `This database's schema is from before the baseline and stops at migration ${at.id} (${at.name}), short of ${PRE_BASELINE.last.id} (${PRE_BASELINE.last.name}). ` +
        "Upgrade it with a release made before the baseline first, then with this one.",
    );
  }
  const marked = migrations.filter((m) => m.id === 1 || rows.some((r) => PRE_BASELINE.later[r.name] === m.id));
  await tx.query("delete from schema_migrations");
  await tx.query("insert into schema_migrations (id, name) select * from unnest($1::int[], $2::text[])", [marked.map((m) => m.id), marked.map((m) => m.name)]);
}

export async function migrate(db: Database, options: { migrations?: Migration[]; functions?: SqlFunction[] } = {}): Promise<MigrationReport> {
  const migrations = options.migrations ?? (await loadMigrations());
  const functions = options.functions ?? (await loadFunctions());
  return db.transaction(
    async (tx) => {
      await tx.query("select pg_advisory_xact_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
      await ensureTable(tx, "schema_migrations", CREATE_MIGRATIONS);
      await ensureTable(tx, "schema_functions", CREATE_FUNCTIONS);
      await markPreBaseline(tx, migrations);
      // An older build never touches a newer schema: its functions would
      // replace the newer ones (or fail to drop what the newer tables use).
      const unknown = await migrationsUnknownTo(tx, migrations);
      if (unknown.length > 0) throw new SchemaMismatchError(newerDatabase(unknown, migrations.length, "build"));
      const appliedFunctions = await applyFunctions(tx, functions);
      const done = new Set((await tx.query<{ id: number }>("select id from schema_migrations")).rows.map((r) => r.id));
      const applied: string[] = [];
      for (const m of migrations) {
        if (done.has(m.id)) continue;
        await tx.exec(m.sql);
        await tx.query("insert into schema_migrations (id, name) values ($1, $2)", [m.id, m.name]);
        applied.push(`${String(m.id).padStart(6, "0")}_${m.name}`);
      }
      const dropped = await dropGoneFunctions(tx, functions);
      // Checked now that every table they name exists: a body that does not
      // compile fails the whole run here, not at its first call.
      await tx.query("set local check_function_bodies = on");
      for (const f of functions.filter((x) => appliedFunctions.includes(x.name))) await execFile(tx, f);
      await checkOneEach(tx, functions);
      return { applied, functions: { applied: appliedFunctions, dropped }, current: migrations.length };
    },
    // Another replica may be mid-migration; wait for it rather than fail fast.
    { lockTimeoutMs: 120_000, statementTimeoutMs: 600_000 },
  );
}

/** A database whose schema is not the one this build (or CLI) expects; the message says what to run. */
class SchemaMismatchError extends Error {
  override name = "SchemaMismatchError";
}

interface RecordedMigration {
  id: number;
  name: string;
}

/** The database's migrations that this build does not have (by number and name): a later release made them. */
async function migrationsUnknownTo(db: Queryable, migrations: Migration[]): Promise<RecordedMigration[]> {
  const rows = (await db.query<RecordedMigration>("select id, name from schema_migrations order by id")).rows;
  if (rows[0]?.name === PRE_BASELINE.firstName) return [];
  return rows.filter((r) => migrations[r.id - 1]?.name !== r.name);
}

function newerDatabase(unknown: RecordedMigration[], known: number, what: "build" | "CLI"): string {
  const first = unknown[0]!;
  return (
    `This database is newer than this ${what}: its schema has migration ${first.id} (${first.name})${unknown.length > 1 ? ` and ${unknown.length - 1} more` : ""}, ` +
    `which this ${what} (schema version ${known}) does not know. Run the release that migrated it, or a later one: an older release never changes a newer schema.`
  );
}

/**
 * For every command but serve and migrate (which apply this build's schema):
 * the database's schema must be exactly this build's, migrations and function
 * bodies, or the command refuses, saying which side is ahead. A CLI of another
 * release would otherwise apply its own functions under a running service of
 * this one (every command also runs through the embedded service's socket).
 * Only a database without any schema yet (a first install: `agent add` before
 * the first start) is set up here.
 */
export async function requireSameSchema(db: Database, options: { migrations?: Migration[]; functions?: SqlFunction[] } = {}): Promise<void> {
  const migrations = options.migrations ?? (await loadMigrations());
  const functions = options.functions ?? (await loadFunctions());
  const present = (await db.query<{ m: boolean; f: boolean }>("select to_regclass('schema_migrations') is not null as m, to_regclass('schema_functions') is not null as f")).rows[0]!;
  const applied = present.m ? (await db.query<RecordedMigration>("select id, name from schema_migrations order by id")).rows : [];
  if (applied.length === 0) {
    await migrate(db, { migrations, functions });
    return;
  }
  const unknown = await migrationsUnknownTo(db, migrations);
  if (unknown.length > 0) throw new SchemaMismatchError(`${newerDatabase(unknown, migrations.length, "CLI")} Use the CLI of the release the service runs.`);
  if (applied.length < migrations.length || applied[0]?.name === PRE_BASELINE.firstName) {
    throw new SchemaMismatchError(
      `This database's schema is older than this CLI (schema version ${applied[0]?.name === PRE_BASELINE.firstName ? "from before the baseline" : applied.length}; this CLI's is ${migrations.length}). ` +
        "Upgrade it first with agent-memory migrate (or by starting this release's service), or use the CLI of the release the service runs.",
    );
  }
  const recorded = new Map(present.f ? (await db.query<{ name: string; checksum: string }>("select name, checksum from schema_functions")).rows.map((r) => [r.name, r.checksum]) : []);
  const differ = [
    ...functions.filter((f) => recorded.get(f.name) !== f.checksum).map((f) => f.name),
    ...[...recorded.keys()].filter((name) => !functions.some((f) => f.name === name)),
  ].sort();
  if (differ.length > 0) {
    throw new SchemaMismatchError(
      "This CLI is from another release than the running service (or than the release that last migrated this database): " +
        `their SQL functions differ (${differ.slice(0, 5).join(", ")}${differ.length > 5 ? ` and ${differ.length - 5} more` : ""}). ` +
        "Use the CLI of the release the service runs. To put this release's schema in place instead, run agent-memory migrate, or start this release's service.",
    );
  }
}

/** For /readyz: how many migrations are not applied yet. */
export async function migrationsPending(db: Queryable, expected: number): Promise<number> {
  const exists = await db.query<{ ok: boolean }>("select to_regclass('schema_migrations') is not null as ok");
  if (!exists.rows[0]?.ok) return expected;
  const r = await db.query<{ n: number }>("select count(*)::int as n from schema_migrations");
  return Math.max(0, expected - (r.rows[0]?.n ?? 0));
}
