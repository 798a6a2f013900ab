import { defineConfig } from "vitest/config";

/**
 * Files that time the service or wait on its deadlines (stalls, slow databases,
 * watchdogs, shutdown, concurrency limits, the secret guard's cost): they run
 * one at a time, after the rest, on a machine nothing else in the suite loads.
 */
const TIMING = [
  "test/reliability/stall.test.ts",
  "test/reliability/slow-db.test.ts",
  "test/reliability/embedded-watchdog.test.ts",
  "test/reliability/killed-service.test.ts",
  "test/reliability/shutdown.test.ts",
  "test/reliability/db-restart.test.ts",
  // Clusters made by the test: a failover's time to first success, and the replica lag bound, are timed.
  "test/reliability/failover.test.ts",
  "test/reliability/read-replicas.test.ts",
  "test/reliability/db-faults.test.ts",
  "test/http/http-hardening.test.ts",
  "test/http/agent-concurrency.test.ts",
  "test/secrets/scan-attack.test.ts",
  "test/reliability/name-attack.test.ts",
  "test/secrets/guard-cost.test.ts",
  // A diff gives up past a wall-clock bound (DIFF_TIMEOUT_MS): on a loaded machine an ordinary one would too.
  "test/console/diff.test.ts",
];

/** What both projects share. The global setup is not among them: it belongs to the root alone. */
const SHARED = {
  setupFiles: ["test/support/setup-file.ts"],
  pool: "forks" as const,
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    // The root's global setup runs once for the run, and every project reads what it
    // provides. A project that inherited it would build the templates again: each
    // project runs its own global setup, one after the other, before any file starts.
    globalSetup: ["test/support/global-setup.ts"],
    reporters: ["default"],
    projects: [
      {
        test: {
          ...SHARED,
          name: "main",
          include: ["test/**/*.test.ts"],
          exclude: TIMING,
          // Most files wait on Postgres, PGlite's worker or a child process: a third
          // worker on two cores keeps them busy. Modules hold no state a file leaves
          // behind (pools, servers and registries belong to each file's own objects),
          // so a worker keeps what it imported for its next file.
          maxWorkers: 3,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: { ...SHARED, name: "timing", include: TIMING, fileParallelism: false, isolate: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
