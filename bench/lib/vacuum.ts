// After a bulk load: what autovacuum does within about a minute in production,
// done at once so that the figures measured next do not share the machine with it.
import type pg from "pg";

/** The tables a load of facts writes: the facts, their versions and events, and the recall vocabulary (its trigger). */
export const FACT_TABLES = ["facts", "fact_versions", "fact_events", "fact_words"];

/** VACUUM ANALYZE of `tables`, then a wait (at most a minute) until no autovacuum worker is busy in this database. */
export async function vacuumAnalyze(admin: pg.Client, tables: readonly string[]): Promise<void> {
  // Names from this module's callers' constants only; VACUUM takes no parameters.
  await admin.query(`vacuum analyze ${tables.join(", ")}`);
  for (let i = 0; i < 120; i++) {
    const busy = (await admin.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where backend_type = 'autovacuum worker' and datname = current_database()")).rows[0]!.n;
    if (busy === 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}
