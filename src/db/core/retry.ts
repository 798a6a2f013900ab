// Retrying a write that Postgres aborted to break a deadlock or a serialization
// conflict, for the graph's and the facts' writes.
import { setTimeout as delay } from "node:timers/promises";
import { pgCode, PgCode } from "./errors.js";

const DEADLOCK_RETRIES = 4;

/**
 * Runs a write, retrying when Postgres aborted it to break a deadlock or a
 * serialization conflict. Writers take their unique keys in one order (the
 * graph's batches: src/graph/sql.ts, KEY_ORDER_NOTE; the recall vocabulary:
 * am_fact_words_inserted), so these are rare: a delete racing an import, an import's
 * transaction of many facts racing an agent's store. Each attempt must be a
 * whole statement or transaction, so that a retry is safe; it waits a little,
 * at random, first, so that it does not meet the winner half-way again.
 */
export async function withDeadlockRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = pgCode(error);
      const retryable = code === PgCode.DEADLOCK_DETECTED || code === PgCode.SERIALIZATION_FAILURE;
      if (!retryable || attempt >= DEADLOCK_RETRIES) throw error;
      await delay(Math.random() * 25 * 2 ** attempt);
    }
  }
}
