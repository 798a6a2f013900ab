// Where the vectors live (fact_embeddings, sql/migrations) and how they are
// searched. One plain real[] column on every database: with pgvector
// installed, vectors compare in C through a cast to vector(dims), over an
// approximate (HNSW) index where the service could build one; without it,
// by an exact scan in SQL of the caller's readable facts (docs/recall.md).
import type { Database, Queryable } from "../../db/core/database.js";
import { preparedIn } from "../../db/sql/prepared.js";

const prepared = preparedIn("embeddings");

/** The text a fact's vector is made of: what lexical recall searches (its name, description and the first 1,000 characters of its body). */
const FACT_TEXT = "am_fact_search_text(f.name, f.description, f.body)";

/** Whether a fact's current version was redacted: its text is gone, and so is its vector (nothing to embed). */
const NOT_REDACTED = "not exists (select 1 from fact_redactions r where r.fact_id = f.id and r.version = f.version)";

// The next facts without a vector of the model, after $1 (by id); $2 how many.
const PENDING = `
  select f.id::text as id, ${FACT_TEXT} as text, md5(${FACT_TEXT}) as digest
    from facts f
   where f.id > $1::bigint
     and not exists (select 1 from fact_embeddings e where e.fact_id = f.id and e.model = $3::text)
     and ${NOT_REDACTED}
   order by f.id
   limit $2::int`;

// Each vector is written only if its fact's text is still the one embedded
// (the digest): a fact updated or redacted meanwhile is left waiting for its
// new text. The rows are locked while they are checked, so an update that
// commits first is seen (and its trigger, am_fact_embedding_stale, cannot
// run between the check and the write). $3 the vectors one after another.
const WRITE = `
  insert into fact_embeddings (fact_id, model, dims, embedding)
  select f.id, $4::text, $5::int, ($3::real[])[(x.i - 1) * $5 + 1 : x.i * $5]
    from unnest($1::bigint[], $2::text[]) with ordinality as x(id, digest, i)
    join facts f on f.id = x.id
   where md5(${FACT_TEXT}) = x.digest and ${NOT_REDACTED}
     for share of f
  on conflict (fact_id) do update set model = excluded.model, dims = excluded.dims, embedding = excluded.embedding, embedded_at = now()`;

export interface PendingFact {
  id: string;
  text: string;
  digest: string;
}

export async function pendingFacts(db: Queryable, model: string, afterId: string, limit: number): Promise<PendingFact[]> {
  return (await db.query<PendingFact>(PENDING, [afterId, limit, model], prepared("pending"))).rows;
}

export async function writeVectors(db: Queryable, model: string, facts: readonly PendingFact[], vectors: readonly number[][]): Promise<number> {
  const dims = vectors[0]?.length ?? 0;
  const result = await db.query(WRITE, [facts.map((f) => f.id), facts.map((f) => f.digest), vectors.flat(), model, dims], prepared("write"));
  return result.rowCount;
}

/**
 * The model and dimension the stored vectors are of. A new model (or the same
 * name answering another length) drops every vector of the one before, in one
 * transaction: two models' vectors are never compared.
 */
export async function recordModel(db: Database, model: string, dims: number): Promise<{ changed: boolean }> {
  return db.transaction(async (tx) => {
    const current = (await tx.query<{ model: string; dims: number }>("select model, dims from embedding_model for update")).rows[0];
    if (current && current.model === model && current.dims === dims) return { changed: false };
    await tx.query("delete from fact_embeddings where model <> $1::text or dims <> $2::int", [model, dims]);
    await tx.query(
      `insert into embedding_model (model, dims) values ($1::text, $2::int)
       on conflict (only_row) do update set model = excluded.model, dims = excluded.dims, recorded_at = now()`,
      [model, dims],
    );
    return { changed: true };
  });
}

/** The approximate index of vectors of `dims` numbers: a partial HNSW index per dimension, so that its expression's type is fixed. */
const annIndexName = (dims: number) => `fact_embeddings_ann_${dims}`;

export type VectorSearch = "approximate" | "exact-pgvector" | "exact";

/**
 * Makes the approximate index for the recorded model where it can: creates
 * pgvector (if installed and this role may) and the model's HNSW index (if
 * this role owns the table), and drops those of other dimensions. Run by
 * every start and every `agent-memory migrate` (a deployment whose service
 * owns no table builds it there), and when a model is first recorded.
 * Answers how recall will compare vectors; never fails for want of pgvector or
 * of privileges (the error says why, for the log).
 */
export async function prepareVectorSearch(db: Queryable): Promise<{ search: VectorSearch; why?: string }> {
  const recorded = (await db.query<{ dims: number }>("select dims from embedding_model")).rows[0];
  let why: string | undefined;
  if (!(await hasPgvector(db))) {
    try {
      await db.exec("create extension if not exists vector");
    } catch (error) {
      why = `pgvector is not available (${(error as Error).message}): vectors are compared by an exact scan`;
    }
  }
  if (!(await hasPgvector(db))) return { search: "exact", why: why ?? "pgvector is not installed" };
  if (!recorded) return { search: "exact-pgvector" };
  const dims = Math.trunc(recorded.dims);
  try {
    for (const { indexname } of (await db.query<{ indexname: string }>("select indexname from pg_indexes where tablename = 'fact_embeddings' and indexname like 'fact\\_embeddings\\_ann\\_%'")).rows) {
      if (indexname !== annIndexName(dims)) await db.exec(`drop index if exists ${indexname}`);
    }
    await db.exec(`create index if not exists ${annIndexName(dims)} on fact_embeddings using hnsw ((embedding::vector(${dims})) vector_cosine_ops) where dims = ${dims}`);
    return { search: "approximate" };
  } catch (error) {
    return { search: "exact-pgvector", why: `the approximate index could not be built (${(error as Error).message}): run agent-memory migrate as the tables' owner` };
  }
}

async function hasPgvector(db: Queryable): Promise<boolean> {
  return (await db.query<{ ok: boolean }>("select exists (select 1 from pg_extension where extname = 'vector') as ok")).rows[0]!.ok;
}

export interface EmbeddingStatus {
  model: string | null;
  dims: number | null;
  facts: number;
  embedded: number;
  waiting: number;
}

const WAITING = `
  select count(*) as n from facts f
   where not exists (select 1 from fact_embeddings e where e.fact_id = f.id and e.model = $1::text) and ${NOT_REDACTED}`;

/** Facts without a vector of the model (redacted ones have nothing to embed). */
export async function countWaiting(db: Queryable, model: string): Promise<number> {
  return Number((await db.query<{ n: string }>(WAITING, [model], prepared("waiting"))).rows[0]!.n);
}

export async function embeddingStatus(db: Queryable, model: string): Promise<EmbeddingStatus> {
  const row = (
    await db.query<{ recorded: string | null; dims: number | null; facts: string; embedded: string; waiting: string }>(
      `select (select m.model from embedding_model m) as recorded, (select m.dims from embedding_model m where m.model = $1::text) as dims,
              (select count(*) from facts) as facts,
              (select count(*) from fact_embeddings e where e.model = $1::text) as embedded,
              (${WAITING}) as waiting`,
      [model],
    )
  ).rows[0]!;
  return { model: row.recorded, dims: row.dims, facts: Number(row.facts), embedded: Number(row.embedded), waiting: Number(row.waiting) };
}

export interface NeighbourFilters {
  readable: { all: boolean; scopes: string[] };
  type: string | null;
  status: string | null;
  scope: string | null;
}

/** The neighbours' ids with their similarity, best first (the details come with recall's own rows). */
export interface Neighbour {
  id: string;
  similarity: number;
}

/**
 * The `limit` facts most like `vector`, among the caller's readable facts
 * (scopes, then type, status and scope filters, applied before the ranking),
 * of the model's vectors only. With pgvector the HNSW index is scanned
 * iteratively (relaxed order, re-sorted here), so that facts of scopes the
 * caller cannot read never use up the page. `timeoutMs` bounds it on
 * Postgres (the rest of the recall's budget); the embedded database runs it
 * unbounded (a statement timeout there restarts its worker).
 */
export async function nearestFacts(db: Database, search: VectorSearch, model: string, vector: readonly number[], filters: NeighbourFilters, limit: number, timeoutMs: number): Promise<Neighbour[]> {
  const dims = vector.length;
  const where = `e.model = $2::text and e.dims = ${dims} and am_in_scopes(f.scope, $3::boolean, $4::text[])
      and ($5::text is null or f.type = $5::text) and ($6::text is null or f.status = $6::text) and ($7::text is null or f.scope = $7::text)`;
  const params: unknown[] = [null, model, filters.readable.all, filters.readable.scopes, filters.type, filters.status, filters.scope, limit];
  if (search === "exact") {
    const sql = `
      select e.fact_id::text as id, (select sum(a * b) from unnest(e.embedding, $1::real[]) as t(a, b)) as similarity
        from fact_embeddings e join facts f on f.id = e.fact_id
       where ${where}
       order by similarity desc, e.fact_id limit $8::int`;
    params[0] = vector;
    const rows = (await db.queryBounded<{ id: string; similarity: number }>(timeoutMs, sql, params, prepared(`nearest_exact_${dims}`))).rows;
    return rows.map((r) => ({ id: r.id, similarity: Number(r.similarity) }));
  }
  const sql = `
    select e.fact_id::text as id, 1 - (e.embedding::vector(${dims}) <=> $1::vector(${dims})) as similarity
      from fact_embeddings e join facts f on f.id = e.fact_id
     where ${where}
     order by e.embedding::vector(${dims}) <=> $1::vector(${dims}) limit $8::int`;
  params[0] = `[${vector.join(",")}]`;
  const rows = await db.transaction(async (tx) => {
    await tx.exec(`set local hnsw.iterative_scan = relaxed_order; set local statement_timeout = ${Math.max(1, Math.trunc(timeoutMs))}`);
    return (await tx.query<{ id: string; similarity: number }>(sql, params, prepared(`nearest_${dims}`))).rows;
  });
  return rows.map((r) => ({ id: r.id, similarity: Number(r.similarity) })).sort((a, b) => b.similarity - a.similarity);
}
