// A real browser for tests (the console, the OAuth consent step): Debian's
// chromium driven by playwright-core (no browser download; .ci/run installs the
// package when it is missing). Each launch gets its own fresh, throw-away
// profile (Playwright creates a new user data dir per launch and deletes it).
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const CHROMIUM_PATH = "/usr/bin/chromium";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No browser at ${CHROMIUM_PATH}: install Debian's chromium (apt-get update && apt-get install -y chromium), as .ci/run does.`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}
