// The service's background work, declared in one place: what runs once after a
// start, what runs until the service stops, and what runs every hour (each hourly job is a no-op when there is
// nothing to do), on one timer. A job's failure is logged and retried on its
// next run; stop waits for the run in progress.
import type { Logger } from "pino";
import type { Embeddings } from "../app-deps.js";
import type { Config } from "../config/index.js";
import type { Database } from "../db/core/database.js";
import { pruneReceipts, sampleHealthToday, segmentOlderFacts } from "../facts/index.js";
import type { Teardown } from "./teardown.js";

const HOUR_MS = 60 * 60 * 1000;

interface BackgroundJob {
  /** What the log calls it when it fails. */
  name: string;
  /** "once": after the start; "hourly": after the start and then every hour; "until stopped": from the start until the service stops (the signal aborts). */
  when: "once" | "hourly" | "until stopped";
  run(signal: AbortSignal): Promise<unknown>;
}

export function backgroundJobs(config: Config, db: Database, logger: Logger, stopping: () => boolean, embeddings?: Embeddings): BackgroundJob[] {
  return [
    // With EMBEDDINGS_URL: each fact's vector, made off the request path (recall finds it by words meanwhile).
    ...(embeddings ? [{ name: "embedding facts", when: "until stopped" as const, run: (signal: AbortSignal) => embeddings.run(signal) }] : []),
    // The console's backlog chart: today's sample, written once a day per database.
    { name: "writing the day's health sample", when: "hourly", run: () => sampleHealthToday(db, config.facts.staleAfterDays) },
    { name: "pruning recall receipts past RECEIPTS_RETENTION_DAYS", when: "hourly", run: () => pruneReceipts(db, config.facts.receiptsRetentionDays) },
    // Facts written before the service split CJK text, or under another
    // dictionary, get their words (recall finds them by substring meanwhile);
    // it stops between batches once the service is stopping.
    { name: "segmenting earlier facts' CJK text", when: "once", run: () => segmentOlderFacts(db, logger, stopping) },
  ];
}

export function startJobs(jobs: readonly BackgroundJob[], logger: Logger, teardown: Teardown): void {
  const stopped = new AbortController();
  const run = (job: BackgroundJob) =>
    job.run(stopped.signal).catch((error: unknown) =>
      logger.warn({ err: error }, `${job.name} failed; ${job.when === "hourly" ? "it is tried again within the hour" : "the next start tries again"}`),
    );
  const once = Promise.all(jobs.filter((job) => job.when !== "hourly").map(run));
  const hourly = jobs.filter((job) => job.when === "hourly");
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = running.then(async () => {
      for (const job of hourly) await run(job);
    });
  };
  tick();
  const timer = setInterval(tick, HOUR_MS);
  timer.unref();
  teardown.push("background jobs", async () => {
    clearInterval(timer);
    stopped.abort();
    await Promise.all([running, once]);
  });
}
