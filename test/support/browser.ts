// Real Chromium (Debian's /usr/bin/chromium) driven by playwright-core, for
// pages a person uses: the console and the OAuth consent step.
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}
