// What a database's schema is, as lines to compare: tables and columns,
// constraints, indexes, triggers, sequences and functions (their bodies by
// hash), read from the catalog, so it works on Postgres and PGlite alike.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Queryable } from "../../src/db/core/database.js";
import type { Migration } from "../../src/db/schema/migrate.js";

const CATALOG = `
  select 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
         || case when a.attnotnull then ' not null' else '' end
         || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
         || case when a.attgenerated = 's' then ' generated' else '' end
         || case when a.attidentity <> '' then ' identity' else '' end as line
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
   where n.nspname = 'public' and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
  union all
  select 'constraint ' || c.relname || '.' || k.conname || ' ' || pg_get_constraintdef(k.oid)
    from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'
  union all
  select 'index ' || pg_get_indexdef(i.indexrelid)
    from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'
  union all
  select 'trigger ' || pg_get_triggerdef(t.oid)
    from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and not t.tgisinternal
  union all
  select 'sequence ' || c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'S'
  union all
  select 'function ' || p.oid::regprocedure::text || ' ' || md5(coalesce(p.prosrc, '')) || ' ' || coalesce(array_to_string(p.proconfig, ','), '')
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public' and p.proname like 'am\\_%'
  order by 1`;

/** The schema as sorted lines, without the migrator's own tables. */
export async function schemaOf(db: Queryable): Promise<string[]> {
  const lines = (await db.query<{ line: string }>(CATALOG)).rows.map((r) => r.line);
  return lines.filter((l) => !/\bschema_(migrations|functions)\b/.test(l));
}

/**
 * The schema as it was before the baseline: the 44 numbered migrations of that
 * time (as the last commit before the baseline, a94910b, had them in sql/),
 * kept in test/fixtures/pre-baseline/ so that the upgrade path is tested on any
 * clone, a shallow one included. Read once per process.
 */
const PRE_BASELINE_DIR = fileURLToPath(new URL("../fixtures/pre-baseline/", import.meta.url));
let preBaseline: Migration[] | undefined;
export function preBaselineMigrations(): Migration[] {
  preBaseline ??= readdirSync(PRE_BASELINE_DIR)
    .filter((f) => /^\d{6}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const m = /^(\d{6})_([a-z0-9_]+)\.sql$/.exec(file)!;
      return { id: Number(m[1]), name: m[2]!, sql: readFileSync(join(PRE_BASELINE_DIR, file), "utf8") };
    });
  return preBaseline;
}

/** Applies `migrations` as the migrator before the baseline did: in order, each recorded by number and name. */
export async function migrateAsBefore(db: { transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> }, migrations: Migration[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query("create table if not exists schema_migrations (id integer primary key, name text not null, applied_at timestamptz not null default now())");
    for (const m of migrations) {
      await tx.exec(m.sql);
      await tx.query("insert into schema_migrations (id, name) values ($1, $2)", [m.id, m.name]);
    }
  });
}
