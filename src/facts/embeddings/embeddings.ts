// Recall by meaning, as the service runs it: the keywords' embedding within
// the recall's budget, the neighbour search, and the queue that embeds facts
// off the request path. A store never waits for the endpoint: the queue is
// woken by the service's own writes and looks every EMBEDDINGS_LIMITS.pollMs
// for those of other processes (workers, imports, the CLI), embeds what waits
// in batches, and backs off (doubling, to EMBEDDINGS_LIMITS.retryMaxMs) while
// the endpoint fails. Several workers may embed the same fact at once; the
// write is idempotent.
import type { Logger } from "pino";
import type { Embeddings, QueryVector } from "../../app-deps.js";
import type { Database } from "../../db/core/database.js";
import { EMBEDDINGS_LIMITS } from "../../limits.js";
import type { Metrics } from "../../metrics.js";
import { embedTexts, type EndpointSettings } from "./endpoint.js";
import { countWaiting, nearestFacts, type NeighbourFilters, pendingFacts, prepareVectorSearch, recordModel, type VectorSearch, writeVectors } from "./store.js";

export interface EmbeddingsSettings extends EndpointSettings {
  recallBudgetMs: number;
  minSimilarity: number;
}

/** One pass's progress: facts embedded so far, of those waiting when it began. */
export type Progress = (embedded: number, waiting: number) => void;

export class FactEmbeddings implements Embeddings {
  readonly model: string;
  readonly minSimilarity: number;
  readonly recallBudgetMs: number;
  #search: VectorSearch = "exact";
  #dims: number | undefined;
  #wake: (() => void) | undefined;
  #woken = false;

  constructor(
    private readonly settings: EmbeddingsSettings,
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly metrics?: Metrics,
  ) {
    this.model = settings.model;
    this.minSimilarity = settings.minSimilarity;
    this.recallBudgetMs = settings.recallBudgetMs;
  }

  /** How vectors are compared here (pgvector and its index where they can be made); logged once when it is an exact scan. */
  async prepare(): Promise<VectorSearch> {
    const { search, why } = await prepareVectorSearch(this.db);
    this.#search = search;
    if (why) this.logger.info(`recall by meaning: ${why}`);
    return search;
  }

  async embedQuery(text: string): Promise<QueryVector> {
    const budget = this.settings.recallBudgetMs;
    try {
      const [vector] = await embedTexts(this.settings, [text], AbortSignal.timeout(budget));
      return { vector: vector! };
    } catch (error) {
      this.metrics?.embeddingFailures.inc({ leg: "recall" });
      const timedOut = (error as Error).name === "TimeoutError";
      if (!timedOut) this.logger.warn({ err: error }, "embedding a recall's keywords failed; it answered by words");
      return { unavailable: timedOut ? `the embeddings endpoint did not answer within ${budget} ms` : "the embeddings endpoint failed" };
    }
  }

  nearest(db: Database, vector: readonly number[], filters: NeighbourFilters, limit: number, timeoutMs: number) {
    return nearestFacts(db, this.#search, this.model, vector, filters, limit, timeoutMs);
  }

  /** The neighbour search failed or ran out of the budget: counted, logged when it is not the budget, and said in the answer. */
  searchFailed(error: unknown, timeoutMs: number): string {
    this.metrics?.embeddingFailures.inc({ leg: "recall" });
    const timedOut = /statement timeout|canceling statement/i.test((error as Error).message ?? "");
    if (!timedOut) this.logger.warn({ err: error }, "searching facts by meaning failed; the recall answered by words");
    return timedOut ? `the search by meaning did not finish within the remaining ${Math.round(timeoutMs)} ms of the budget` : "the search by meaning failed";
  }

  written(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /** Embeds the next batch after `afterId`; undefined when none waits there. */
  async #embedBatch(afterId: string, signal: AbortSignal): Promise<{ lastId: string; embedded: number } | undefined> {
    const facts = await pendingFacts(this.db, this.model, afterId, EMBEDDINGS_LIMITS.batchFacts);
    if (facts.length === 0) return undefined;
    const vectors = await embedTexts(this.settings, facts.map((f) => f.text), AbortSignal.any([signal, AbortSignal.timeout(EMBEDDINGS_LIMITS.requestTimeoutMs)]));
    const dims = vectors[0]!.length;
    if (dims !== this.#dims) {
      if ((await recordModel(this.db, this.model, dims)).changed) {
        this.logger.info({ model: this.model, dims }, "recall by meaning: a new embedding model; every fact is embedded again with it");
        await this.prepare();
      }
      this.#dims = dims;
    }
    const embedded = await writeVectors(this.db, this.model, facts, vectors);
    this.metrics?.factsEmbedded.inc(embedded);
    return { lastId: facts.at(-1)!.id, embedded };
  }

  /**
   * Embeds every fact that waits, batch after batch, once; `progress` hears
   * after each batch. Failures are thrown (the CLI's backfill reports them).
   */
  async embedWaiting(signal: AbortSignal, progress?: Progress): Promise<number> {
    const waiting = await countWaiting(this.db, this.model);
    this.metrics?.embeddingsWaiting.set(waiting);
    let after = "0";
    let done = 0;
    for (;;) {
      signal.throwIfAborted();
      const batch = await this.#embedBatch(after, signal);
      if (!batch) break;
      after = batch.lastId;
      done += batch.embedded;
      this.metrics?.embeddingsWaiting.set(Math.max(0, waiting - done));
      progress?.(done, waiting);
    }
    this.metrics?.embeddingsWaiting.set(0);
    return done;
  }

  /** The service's queue: runs until the signal aborts (the service stops). */
  async run(signal: AbortSignal): Promise<void> {
    await this.prepare();
    let failures = 0;
    while (!signal.aborted) {
      this.#woken = false;
      try {
        await this.embedWaiting(signal);
        failures = 0;
      } catch (error) {
        if (signal.aborted) break;
        failures++;
        this.metrics?.embeddingFailures.inc({ leg: "queue" });
        const retryMs = Math.min(1000 * 2 ** (failures - 1), EMBEDDINGS_LIMITS.retryMaxMs);
        this.logger.warn({ err: error, retryInMs: retryMs }, "embedding facts failed; the queue tries again (recall finds them by words meanwhile)");
        await this.#sleep(retryMs, signal, false);
        continue;
      }
      if (!this.#woken) await this.#sleep(EMBEDDINGS_LIMITS.pollMs, signal, true);
    }
  }

  /** Waits `ms`, or less when the service stops or (`wakeable`) a fact is written. */
  #sleep(ms: number, signal: AbortSignal, wakeable: boolean): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      if (wakeable) this.#wake = done;
    });
  }
}
