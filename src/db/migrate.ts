// The schema, applied at start-up in one transaction that first takes an
// advisory lock, so two replicas starting at once serialize (the second finds
// nothing left to do) and a failure leaves the schema exactly as it was:
// - sql/functions/<name>.sql: each SQL function's current body, one per file.
//   A file is applied when its checksum differs from the one recorded (as
//   Flyway's and graphile-migrate's repeatable migrations are), before the
//   pending migrations, so that a migration may use what it defines. A file
//   that is gone drops its function. A file that changes its signature replaces the old one.
//   Files are applied after the files of the functions they name: a standard
//   SQL body (`return …`) binds the functions it calls when it is created.
// - sql/migrations/NNNNNN_name.sql: tables, indexes and data, forward-only,
//   from one baseline.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Database, Queryable } from "./database.js";

/** sql/ at the package root, from src/db (tests) and dist/db (built). */
const SQL_DIR = fileURLToPath(new URL("../../sql/", import.meta.url));
const MIGRATIONS_DIR = `${SQL_DIR}migrations/`;
const FUNCTIONS_DIR = `${SQL_DIR}functions/`;

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

export interface SqlFunction {
  name: string;
  sql: string;
  checksum: string;
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

export async function loadFunctions(dir = FUNCTIONS_DIR): Promise<SqlFunction[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort();
  const functions: SqlFunction[] = [];
  for (const file of files) {
    const match = /^(am_[a-z0-9_]+)\.sql$/.exec(file);
    if (!match) throw new Error(`Function file ${file} must be named am_<name>.sql after the function it defines`);
    const sql = await readFile(`${dir}${file}`, "utf8");
    functions.push({ name: match[1]!, sql, checksum: createHash("sha256").update(sql).digest("hex") });
  }
  return inDependencyOrder(functions);
}

/**
 * The files in name order, except that a file comes after the files of the
 * functions it names (outside comments). A cycle (PL/pgSQL functions calling
 * each other, which bind nothing at creation) keeps name order.
 */
function inDependencyOrder(functions: SqlFunction[]): SqlFunction[] {
  const byName = new Map(functions.map((f) => [f.name, f]));
  const ordered: SqlFunction[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (f: SqlFunction) => {
    if (state.has(f.name)) return;
    state.set(f.name, "visiting");
    const code = f.sql.replace(/--[^\n]*/g, "");
    for (const word of new Set(code.match(/\bam_[a-z0-9_]+\b/g) ?? [])) {
      const named = byName.get(word);
      if (named && named !== f) visit(named);
    }
    state.set(f.name, "done");
    ordered.push(f);
  };
  for (const f of functions) visit(f);
  return ordered;
}

const CREATE_MIGRATIONS = `
  create table if not exists schema_migrations (
    id integer primary key,
    name text not null,
    applied_at timestamptz not null default now()
  )`;
const CREATE_FUNCTIONS = `
  create table if not exists schema_functions (
    name text primary key,
    checksum text not null,
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

async function execFile(tx: Queryable, f: SqlFunction): Promise<void> {
  try {
    await tx.exec(f.sql);
  } catch (error) {
    throw new Error(`sql/functions/${f.name}.sql failed: ${(error as Error).message}`, { cause: error });
  }
}

interface Signature {
  sig: string;
  kind: string;
}

/** The functions (and aggregates) of a name in the current schema. */
async function signatures(tx: Queryable, name: string): Promise<Signature[]> {
  return (await tx.query<Signature>(
    "select p.oid::regprocedure::text as sig, p.prokind as kind from pg_proc p where p.proname = $1 and p.pronamespace = current_schema()::regnamespace",
    [name],
  )).rows;
}

async function dropAll(tx: Queryable, functions: Signature[]): Promise<void> {
  for (const f of functions) await tx.exec(`drop ${f.kind === "a" ? "aggregate" : "function"} ${f.sig}`);
}

// What stores a function's results: the indexes whose expression calls it, and
// the generated columns computed with it, also through the SQL functions that
// call it (SQL-standard bodies record what they call). $1 the function's oids.
const STORED_BY = `
  with recursive callers(oid) as (
    select unnest($1::oid[])
    union
    select d.objid from pg_depend d join callers c on d.refobjid = c.oid
     where d.refclassid = 'pg_proc'::regclass and d.classid = 'pg_proc'::regclass
  )
  select distinct coalesce(i.relname::text, t.relname || '.' || a.attname) as what
    from pg_depend d
    join callers c on d.refobjid = c.oid and d.refclassid = 'pg_proc'::regclass
    left join pg_class i on d.classid = 'pg_class'::regclass and i.oid = d.objid and i.relkind = 'i'
    left join pg_attrdef ad on d.classid = 'pg_attrdef'::regclass and ad.oid = d.objid
    left join pg_class t on t.oid = ad.adrelid
    left join pg_attribute a on a.attrelid = ad.adrelid and a.attnum = ad.adnum
   where i.oid is not null or a.attgenerated = 's'
   order by 1`;

/**
 * A function whose results an index or a stored column holds must not change
 * its body in place: what was stored would no longer be what the function
 * computes (an index would miss, or find, the wrong rows). Such a change is a
 * new function, with a migration that rebuilds what stores it.
 */
async function refuseChangeOfStored(tx: Queryable, f: SqlFunction): Promise<void> {
  const oids = (await tx.query<{ oid: number }>("select p.oid::int as oid from pg_proc p where p.proname = $1 and p.pronamespace = current_schema()::regnamespace", [f.name])).rows.map((r) => r.oid);
  if (oids.length === 0) return;
  const stored = (await tx.query<{ what: string }>(STORED_BY, [oids])).rows.map((r) => r.what);
  if (stored.length === 0) return;
  throw new Error(
    `sql/functions/${f.name}.sql changed, but ${stored.join(", ")} ${stored.length === 1 ? "stores" : "store"} what ${f.name} computes: the stored entries would no longer match it. ` +
      "A new reading is a new function (a file of a new name), with a migration that rebuilds them on it; the old file goes once nothing uses it.",
  );
}

/** Applies new and changed function files (a changed signature replaces the old). */
async function applyFunctions(tx: Queryable, functions: SqlFunction[]): Promise<string[]> {
  const recorded = new Map((await tx.query<{ name: string; checksum: string }>("select name, checksum from schema_functions")).rows.map((r) => [r.name, r.checksum]));
  // Bodies may name tables a pending migration creates yet: they are checked
  // once the migrations have run (migrate).
  await tx.query("set local check_function_bodies = off");
  const applied: string[] = [];
  for (const f of functions) {
    if (recorded.get(f.name) === f.checksum) continue;
    if (recorded.has(f.name)) await refuseChangeOfStored(tx, f);
    const before = await signatures(tx, f.name);
    await execFile(tx, f);
    // A file that changed its function's signature replaces it: the old
    // signature goes (or the drop fails, naming what depends on it, such as an
    // index, which then needs a migration).
    const after = await signatures(tx, f.name);
    if (after.some((a) => !before.some((b) => b.sig === a.sig))) await dropAll(tx, before);
    await tx.query(
      "insert into schema_functions (name, checksum) values ($1, $2) on conflict (name) do update set checksum = excluded.checksum, applied_at = now()",
      [f.name, f.checksum],
    );
    applied.push(f.name);
  }
  return applied;
}

/**
 * Drops the functions whose file is gone. After the migrations: one of them may
 * first move what used such a function (an index) to its successor.
 */
async function dropGoneFunctions(tx: Queryable, functions: SqlFunction[]): Promise<string[]> {
  const present = new Set(functions.map((f) => f.name));
  const dropped: string[] = [];
  for (const { name } of (await tx.query<{ name: string }>("select name from schema_functions order by name")).rows) {
    if (present.has(name)) continue;
    await dropAll(tx, await signatures(tx, name));
    await tx.query("delete from schema_functions where name = $1", [name]);
    dropped.push(name);
  }
  return dropped;
}

/** One function per file name: a file defining two signatures under its name is a mistake. */
async function checkOneEach(tx: Queryable, functions: SqlFunction[]): Promise<void> {
  const doubled = (await tx.query<{ name: string }>(
    "select proname as name from pg_proc where proname = any($1::text[]) and pronamespace = current_schema()::regnamespace group by proname having count(*) > 1",
    [functions.map((f) => f.name)],
  )).rows;
  if (doubled.length > 0) {
    throw new Error(`More than one function named ${doubled.map((d) => d.name).join(", ")}: a function file defines one function, under its own name.`);
  }
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
