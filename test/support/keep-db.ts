// KEEP_TEST_DB=1: a test file with a failed test keeps its Postgres database, so
// the failure can be inspected (psql "$TEST_DATABASE_URL" -c '\l am_test_*').
// Registered in every test file by vitest.config.ts's setupFiles.
import { afterEach } from "vitest";

let failed = false;

export function watchForFailures(): void {
  // Per file: modules may be shared by the files a worker runs one after another (vitest.config.ts).
  failed = false;
  // Destructured: vitest reads a hook's first parameter for the fixtures it uses (service-test.ts).
  afterEach(({ task }) => {
    if (task.result?.state === "fail") failed = true;
  });
}

/** True (and says so on stderr) when this file's database is to be kept. */
export function keepFailedDatabase(name: string): boolean {
  if (process.env.KEEP_TEST_DB !== "1" || !failed) return false;
  process.stderr.write(`KEEP_TEST_DB=1: kept database ${name} of a failed test file\n`);
  return true;
}
