// npm run screenshots: the docs' pictures, taken from the real console and the
// review app in Debian's chromium by the browser tests that drive them (a real
// service, real MCP clients), with UPDATE_SCREENSHOTS=1 so they write
// docs/console/*.png and docs/review-app*.png. test/code/docs.test.ts checks that
// every picture the docs show is written by one of these files.
import { spawnSync } from "node:child_process";

export const SCREENSHOT_TESTS = ["test/console/browser.test.ts", "test/facts/review-app.test.ts"];

if (import.meta.url === `file://${process.argv[1]}`) {
  const run = spawnSync("npx", ["vitest", "run", ...SCREENSHOT_TESTS], {
    stdio: "inherit",
    env: { ...process.env, UPDATE_SCREENSHOTS: "1" },
  });
  process.exit(run.status ?? 1);
}
