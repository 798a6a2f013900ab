// Runs in every test file before its tests (vitest.config.ts setupFiles).
import { watchForFailures } from "./keep-db.js";

watchForFailures();
