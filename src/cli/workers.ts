// WORKERS=N: N serving processes on one port (node:cluster), so a server with
// several cores uses them all; one Node process runs JavaScript on one core.
// The primary serves nothing itself: it starts the workers, prints the banner
// (or the --json object) once, adds up their metrics for /metrics, replaces a
// worker that dies, and stops them all on SIGTERM/SIGINT/SIGHUP.
//
// The first worker starts alone (it migrates the database and, on an empty
// one, creates the owner and shows the first token); the others start once it
// listens, with FIRST_START_OWNER off. Each worker has its own database pool.
import cluster, { type Worker } from "node:cluster";
import type { Logger } from "pino";
import { AggregatorRegistry } from "prom-client";
import type { Config } from "../config/index.js";
import { METRICS_MESSAGE, type MetricsReply } from "../metrics-workers.js";
import { stopOnHangup } from "./hangup.js";
import { UsageError } from "./output.js";

/** What a worker tells the primary once it listens. */
export const STARTED_MESSAGE = "agent-memory:started";
export interface StartedMessage {
  type: typeof STARTED_MESSAGE;
  banner: string;
  result: Record<string, unknown>;
}

/** Several processes cannot share the embedded database: refused before anything starts. */
export function checkWorkers(config: Config): void {
  if (config.workers > 1 && !config.databaseUrl) {
    throw new UsageError(
      `WORKERS=${config.workers} needs DATABASE_URL: the embedded database (PGlite) lives inside one process and locks its data folder, so other processes cannot use it. ` +
        `Set DATABASE_URL to a Postgres server to run several workers, or unset WORKERS (or set it to 1).`,
    );
  }
}

interface PrimaryOptions {
  logger: Logger;
  /** Prints what the first worker reports once all listen: the banner, or the --json object. */
  announce: (started: StartedMessage) => void;
}

/** Runs the primary until SIGTERM/SIGINT/SIGHUP and every worker has stopped. */
export async function runPrimary(config: Config, { logger, announce }: PrimaryOptions): Promise<void> {
  const aggregator = new AggregatorRegistry();
  const count = config.workers;
  let stopping = false;
  let failed = false;
  const ids = new Map<Worker, number>();
  let onAllStopped = () => {};
  const allStopped = new Promise<void>((resolve) => (onAllStopped = resolve));
  const checkStopped = () => {
    if (stopping && ids.size === 0) onAllStopped();
  };

  const fork = (index: number, firstStart: boolean): Promise<StartedMessage> => {
    const env: Record<string, string> = {};
    if (!firstStart) env.FIRST_START_OWNER = "false";
    const worker = cluster.fork(env);
    ids.set(worker, index);
    worker.on("message", (message: { type?: string; id?: number }) => {
      if (message?.type !== METRICS_MESSAGE) return;
      aggregator.clusterMetrics().then(
        (text) => worker.send({ type: METRICS_MESSAGE, id: message.id, text } satisfies MetricsReply),
        (error: Error) => worker.send({ type: METRICS_MESSAGE, id: message.id, error: error.message } satisfies MetricsReply),
      );
    });
    let started = false;
    return new Promise((resolve, reject) => {
      const onMessage = (message: { type?: string }) => {
        if (message?.type !== STARTED_MESSAGE) return;
        started = true;
        worker.off("message", onMessage);
        worker.off("exit", onEarlyExit);
        resolve(message as StartedMessage);
      };
      const onEarlyExit = (code: number | null) => reject(new Error(`worker ${index} stopped during start-up (exit code ${code}); its error is above`));
      worker.on("message", onMessage);
      worker.once("exit", onEarlyExit);
      worker.once("exit", (code, signal) => {
        ids.delete(worker);
        checkStopped();
        // A worker that fails to start is not retried (its error is a configuration or database problem).
        if (stopping || !started) return;
        // A crash after start-up: log it and start a replacement in its place.
        logger.error({ worker: index, code, signal }, "worker stopped unexpectedly; starting a replacement");
        fork(index, false).catch((error: unknown) => {
          logger.error({ err: error, worker: index }, "replacement worker failed to start; stopping");
          failed = true;
          stopAll();
        });
      });
    });
  };

  const stopAll = (signal: NodeJS.Signals = "SIGTERM") => {
    stopping = true;
    for (const worker of ids.keys()) worker.process.kill(signal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal, workers: ids.size }, "shutting down: stopping every worker");
    stopAll();
    checkStopped();
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  // The terminal closed: each worker gets SIGHUP too (they share the terminal, so their stop
  // must be as silent as ours), then this process ends by SIGHUP once all have (./hangup.ts).
  stopOnHangup(logger, config.shutdownTimeoutMs + 10_000, (signal) => {
    stopAll(signal);
    checkStopped();
    return allStopped;
  });

  try {
    const first = await fork(1, true);
    await Promise.all(Array.from({ length: count - 1 }, (_, i) => fork(i + 2, false)));
    logger.info({ workers: count }, "all workers listening");
    announce(first);
  } catch (error) {
    stopAll();
    checkStopped();
    await allStopped;
    throw error;
  }
  await allStopped;
  if (failed) throw new Error("a worker could not be replaced; the service stopped");
}
