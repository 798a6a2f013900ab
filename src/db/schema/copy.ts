// Copies every row of one database into another of the same schema (what
// `agent-memory move` does from the embedded database to Postgres): the
// tables in foreign-key order, each in pages read from one snapshot of the
// source, as the rows are (ids, hashes, times), so every reference between
// them holds. Rows travel as JSON (row_to_json on the source,
// json_populate_recordset on the target), which both databases read and write
// alike for every column type of the schema. The target's user triggers are
// off during the copy (their work, such as counts, words and the ledger's
// records, is in the copied tables already); its foreign keys stay on. Its
// sequences end where the source's are. One transaction on each side: the
// target has all of it or nothing.
//
// A maintained tool was the first choice: @electric-sql/pglite-tools' pg_dump
// pins another PGlite release than the service's, and its SQL needs psql to
// restore (COPY … FROM stdin), which a host with a managed Postgres may not have.
import type { Database, Queryable } from "../core/database.js";

/** Bookkeeping tables the target's own migration writes. */
const SKIPPED = new Set(["schema_migrations", "schema_functions"]);

/** Rows per statement: pages of at most this many rows (a fact's body may be 16,000 characters). */
const PAGE_ROWS = 500;

/** Each statement reads or writes one page; a request's bound (DB_STATEMENT_TIMEOUT_MS) is no measure for that. */
const STATEMENT_TIMEOUT_MS = 300_000;

export interface CopiedTable {
  table: string;
  rows: number;
}

interface TableShape {
  name: string;
  /** Columns a row is inserted with (not generated ones), quoted. */
  columns: string[];
  /** Primary key columns, quoted (needed only by a table that references itself). */
  key: string[];
  /** Columns that reference the table itself: filled in after all its rows are in. */
  selfReferences: string[];
  /** Tables it references. */
  references: string[];
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The tables of the current schema as the target has them, in an order where each comes after those it references. */
async function tablesOf(db: Queryable): Promise<TableShape[]> {
  const rows = (await db.query<{ name: string; columns: string[]; key: string[] | null; refs: Array<{ to: string; columns: string[] }> | null }>(`
    select c.relname as name,
           array(select a.attname::text from pg_attribute a
                  where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                  order by a.attnum) as columns,
           (select array_agg(a.attname::text order by a.attnum) from pg_index i
              join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
             where i.indrelid = c.oid and i.indisprimary) as key,
           (select json_agg(json_build_object('to', r.relname, 'columns',
                     array(select a.attname::text from pg_attribute a where a.attrelid = c.oid and a.attnum = any(f.conkey))))
              from pg_constraint f join pg_class r on r.oid = f.confrelid
             where f.conrelid = c.oid and f.contype = 'f') as refs
      from pg_class c
     where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'
     order by c.relname`)).rows;
  const shapes = rows
    .filter((r) => !SKIPPED.has(r.name))
    .map((r): TableShape => {
      const refs = r.refs ?? [];
      return {
        name: r.name,
        columns: r.columns.map(quote),
        key: (r.key ?? []).map(quote),
        selfReferences: refs.filter((f) => f.to === r.name).flatMap((f) => f.columns.map(quote)),
        references: [...new Set(refs.map((f) => f.to).filter((to) => to !== r.name))],
      };
    });
  for (const t of shapes) {
    if (t.selfReferences.length > 0 && t.key.length === 0) throw new Error(`Table ${t.name} references itself but has no primary key: it cannot be copied in pages.`);
  }
  const byName = new Map(shapes.map((t) => [t.name, t]));
  const ordered: TableShape[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (t: TableShape, path: string[]) => {
    if (state.get(t.name) === "done") return;
    if (state.get(t.name) === "visiting") throw new Error(`Foreign keys form a cycle (${[...path, t.name].join(" → ")}): the tables cannot be copied in order.`);
    state.set(t.name, "visiting");
    for (const to of t.references) {
      const referenced = byName.get(to);
      if (referenced) visit(referenced, [...path, t.name]);
    }
    state.set(t.name, "done");
    ordered.push(t);
  };
  for (const t of shapes) visit(t, []);
  return ordered;
}

/** The sequences of the current schema and where each stands (null: never used). */
async function sequencesOf(db: Queryable): Promise<Array<{ name: string; last: string | null }>> {
  const names = (await db.query<{ name: string }>(
    "select c.relname as name from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind = 'S' order by 1",
  )).rows;
  const out: Array<{ name: string; last: string | null }> = [];
  for (const { name } of names) {
    const row = (await db.query<{ last: string | null; called: boolean }>(`select last_value::text as last, is_called as called from ${quote(name)}`)).rows[0]!;
    out.push({ name, last: row.called ? row.last : null });
  }
  return out;
}

/**
 * Copies every row of `source` into `target`, whose schema must be the same and
 * which must hold nothing but what its migrations wrote (the caller checks
 * both): that is replaced. Returns each table's rows.
 */
export async function copyDatabase(source: Database, target: Database, options: { onTable?: (copied: CopiedTable) => void } = {}): Promise<CopiedTable[]> {
  const tables = await tablesOf(target);
  const copied: CopiedTable[] = [];
  await source.transaction(
    async (from) => {
      await from.query("set transaction isolation level repeatable read, read only");
      await target.transaction(
        async (to) => {
          for (const t of tables) await to.query(`alter table ${quote(t.name)} disable trigger user`);
          // What the target's migrations wrote (the ledger's genesis head, the cursor key) makes way for the source's.
          for (const t of [...tables].reverse()) await to.query(`delete from ${quote(t.name)}`);
          for (const t of tables) {
            const rows = await copyTable(from, to, t);
            copied.push({ table: t.name, rows });
            options.onTable?.({ table: t.name, rows });
          }
          for (const t of tables) await to.query(`alter table ${quote(t.name)} enable trigger user`);
          for (const s of await sequencesOf(from)) {
            await to.query("select setval($1::regclass, $2::bigint, $3::boolean)", [quote(s.name), s.last ?? 1, s.last !== null]);
          }
        },
        { statementTimeoutMs: STATEMENT_TIMEOUT_MS, lockTimeoutMs: 60_000 },
      );
    },
    { statementTimeoutMs: STATEMENT_TIMEOUT_MS },
  );
  return copied;
}

/** The rows of `t` (these columns, those passing `where`) as JSON arrays of at most PAGE_ROWS, in ctid order, from the source's snapshot. */
async function* pages(from: Queryable, t: TableShape, columns: string[], where = "true"): AsyncGenerator<string> {
  for (let after = "(0,0)"; ; ) {
    const page = (await from.query<{ at: string | null; rows: string | null }>(
      `select max(p.ctid)::text as at, jsonb_agg(to_jsonb(p) - 'ctid' order by p.ctid)::text as rows
         from (select ctid, ${columns.join(", ")} from ${quote(t.name)} where ctid > $1::tid and (${where}) order by ctid limit ${PAGE_ROWS}) p`,
      [after],
    )).rows[0];
    if (!page?.rows || !page.at) return;
    yield page.rows;
    after = page.at;
  }
}

async function copyTable(from: Queryable, to: Queryable, t: TableShape): Promise<number> {
  // Columns that reference the table itself go in once every row is there.
  const values = t.columns.map((c) => (t.selfReferences.includes(c) ? "null" : `x.${c}`)).join(", ");
  const insert = `insert into ${quote(t.name)} (${t.columns.join(", ")}) overriding system value
    select ${values} from json_populate_recordset(null::${quote(t.name)}, $1::json) as x`;
  let rows = 0;
  for await (const page of pages(from, t, t.columns)) rows += (await to.query(insert, [page])).rowCount;
  if (t.selfReferences.length > 0) {
    const update = `update ${quote(t.name)} t set ${t.selfReferences.map((c) => `${c} = x.${c}`).join(", ")}
      from json_populate_recordset(null::${quote(t.name)}, $1::json) as x
     where ${t.key.map((k) => `t.${k} = x.${k}`).join(" and ")}`;
    const set = t.selfReferences.map((c) => `${c} is not null`).join(" or ");
    for await (const page of pages(from, t, [...t.key, ...t.selfReferences], set)) await to.query(update, [page]);
  }
  return rows;
}
