// Runs in every test file before its tests (vitest.config.ts setupFiles).
import { afterAll } from "vitest";
import { closeFileResources } from "./file-teardown.js";
import { watchForFailures } from "./keep-db.js";

watchForFailures();
// After every other afterAll of the file: what its tests opened through the helpers, newest first.
afterAll(closeFileResources);
