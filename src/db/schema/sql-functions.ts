// Each SQL function's current body, one per file: sql/functions/<name>.sql.
// A file is applied when its checksum differs from the one recorded (as
// Flyway's and graphile-migrate's repeatable migrations are), before the
// pending migrations, so that a migration may use what it defines (migrate.ts).
// A file that is gone drops its function. A file that changes its signature
// replaces the old one. Files are applied after the files of the functions they
// name: a standard SQL body (`return …`) binds the functions it calls when it is created.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Queryable } from "../core/database.js";

/** sql/ at the package root, from src/db/schema (tests) and dist/db/schema (built). */
export const SQL_DIR = fileURLToPath(new URL("../../../sql/", import.meta.url));
const FUNCTIONS_DIR = `${SQL_DIR}functions/`;

export interface SqlFunction {
  name: string;
  sql: string;
  checksum: string;
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

export const CREATE_FUNCTIONS = `
  create table if not exists schema_functions (
    name text primary key,
    checksum text not null,
    applied_at timestamptz not null default now()
  )`;

export async function execFile(tx: Queryable, f: SqlFunction): Promise<void> {
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
export async function applyFunctions(tx: Queryable, functions: SqlFunction[]): Promise<string[]> {
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
export async function dropGoneFunctions(tx: Queryable, functions: SqlFunction[]): Promise<string[]> {
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
export async function checkOneEach(tx: Queryable, functions: SqlFunction[]): Promise<void> {
  const doubled = (await tx.query<{ name: string }>(
    "select proname as name from pg_proc where proname = any($1::text[]) and pronamespace = current_schema()::regnamespace group by proname having count(*) > 1",
    [functions.map((f) => f.name)],
  )).rows;
  if (doubled.length > 0) {
    throw new Error(`More than one function named ${doubled.map((d) => d.name).join(", ")}: a function file defines one function, under its own name.`);
  }
}
