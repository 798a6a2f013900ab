// memory_review and its MCP App in a real browser: a small host page built on
// the extension's AppBridge (test/support/app-host.js), the app in a sandboxed
// iframe, and every tools/call the app makes forwarded to the real service over
// MCP by a real client, as the person the host connected. With
// UPDATE_SCREENSHOTS=1 it also refreshes docs/review-app*.png.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolRequest, CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Browser, FrameLocator, Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REVIEW_APP_URI } from "../../src/facts/review/review-app/resource.js";
import { launchBrowser } from "../support/browser.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startInProcessService, type InProcessService } from "../support/service.js";

const SLOW = 60_000;
const HOSTILE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;

/** The host page's script: the AppBridge and its glue, bundled here from node_modules. */
async function hostBundle(): Promise<string> {
  const out = await build({ configFile: false, logLevel: "silent", build: { write: false, minify: false, lib: { entry: "test/support/app-host.js", formats: ["es"], fileName: "host" } } });
  const first = (Array.isArray(out) ? out[0] : out) as { output: Array<{ code?: string }> };
  return first.output[0]!.code!;
}

function serveHost(script: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === "/host.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(script);
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><html><head><title>Test host</title><style>body{margin:0;padding:8px;font-family:sans-serif}iframe{width:100%;border:0;height:400px;display:block}</style></head><body><script type="module" src="/host.js"></script></body></html>`);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

describe("the review app in a host", () => {
  let t: TestDatabase;
  let service: InProcessService;
  let browser: Browser;
  let hostServer: Server;
  let writer: Client;
  let reviewer: Client;
  let html: string;
  const foreignRequests: string[] = [];

  const store = (args: Record<string, unknown>) => callOk(writer, "memory_store", { type: "project", scope: "shared", ...args });

  /** A host page showing memory_review's answer for `viewer`, its tool calls made by `actingAs`. */
  async function openApp(viewer: Client, actingAs: Client, theme: "light" | "dark" = "light"): Promise<{ page: Page; app: FrameLocator }> {
    const page = await browser.newPage({ viewport: { width: 900, height: 1100 }, colorScheme: theme });
    const { port } = hostServer.address() as AddressInfo;
    // The app asks for nothing: every request the page makes is the host's own.
    page.on("request", (r) => {
      if (!r.url().startsWith(`http://127.0.0.1:${port}/`)) foreignRequests.push(r.url());
    });
    await page.exposeFunction("forwardToolCall", (params: CallToolRequest["params"]) => actingAs.callTool(params));
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => "startHost" in window);
    await page.evaluate(([h, th]) => (window as unknown as { startHost(html: string, theme: string): Promise<void> }).startHost(h, th), [html, theme] as const);
    const result = (await viewer.callTool({ name: "memory_review", arguments: {} })) as CallToolResult;
    await page.evaluate((r) => (window as unknown as { sendToolResult(r: unknown): Promise<void> }).sendToolResult(r), result);
    const app = page.frameLocator("iframe");
    await app.locator("#app[aria-busy=false]").waitFor();
    return { page, app };
  }

  beforeAll(async () => {
    t = await createTestDatabase("postgres");
    service = await startInProcessService(t.db);
    const writerAgent = await addAgent(t.db, "blog-writer", { scopes: ["shared"] });
    const reviewerAgent = await addAgent(t.db, "rita", { kind: "human", scopes: ["shared"] });
    writer = await connectClient(service, writerAgent.token, "blog-writer");
    reviewer = await connectClient(service, reviewerAgent.token, "claude-desktop");
    await store({ name: "deploy-order", description: "Run migrations before deploying the API", body: "Why: the API reads new columns at start.\nHow: run migrate, then deploy." });
    const first = await store({ name: "tag-articles", description: "Tag every article", body: "Every article gets at least one tag.\nTags are lowercase.\n" });
    await store({ name: "tag-articles", description: "Tag every article with 1-5 tags", body: "Every article gets 1-5 tags.\nTags are lowercase.\n", version: (first.fact as { version: number }).version });
    await store({ name: "hostile-text", description: `Careful ${HOSTILE}`, body: `Body ${HOSTILE}` });
    html = ((await reviewer.readResource({ uri: REVIEW_APP_URI })).contents[0] as { text: string }).text;
    browser = await launchBrowser();
    hostServer = await serveHost(await hostBundle());
  }, SLOW);

  afterAll(async () => {
    expect(foreignRequests).toEqual([]);
    await browser?.close();
    await new Promise((resolve) => (hostServer ? hostServer.close(resolve) : resolve(undefined)));
  });

  it("is listed as the tool's App, one page allowing nothing from elsewhere", async () => {
    const tool = (await reviewer.listTools()).tools.find((x) => x.name === "memory_review")!;
    expect(tool._meta?.ui).toEqual({ resourceUri: REVIEW_APP_URI });
    expect(tool.annotations?.readOnlyHint).toBe(true);
    const content = (await reviewer.readResource({ uri: REVIEW_APP_URI })).contents[0]!;
    expect(content.mimeType).toBe("text/html;profile=mcp-app");
    expect(content._meta).toEqual({ ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } });
    expect(html).toMatch(/http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'/);
    expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\s(src|href)=/i);
  });

  it("answers clients without Apps with the same queue as text and structured content", async () => {
    const result = (await reviewer.callTool({ name: "memory_review", arguments: {} })) as CallToolResult;
    const drafts = (result.structuredContent as { drafts: Array<{ name: string; diff?: unknown[]; previous?: unknown }> }).drafts;
    expect(drafts.map((d) => d.name)).toEqual(["deploy-order", "tag-articles", "hostile-text"]);
    expect(drafts[1]!.diff).toContainEqual({ kind: "added", text: "Every article gets 1-5 tags." });
    expect(drafts[0]!.previous).toBeUndefined();
    expect((result.content[0] as { text: string }).text).toContain("+ Every article gets 1-5 tags.");
    // The author's own drafts are not in their queue.
    const own = await callOk<{ drafts: unknown[] }>(writer, "memory_review");
    expect(own.drafts).toEqual([]);
  });

  it("renders the queue with diffs, keeps hostile text inert, and confirms as the reviewer", async () => {
    const { page, app } = await openApp(reviewer, reviewer);
    await expect.poll(() => app.locator("article h2").allTextContents()).toEqual(["deploy-order", "tag-articles", "hostile-text"]);
    const tags = app.locator("article", { hasText: "tag-articles" });
    expect(await tags.locator("pre.diff ins").allTextContents()).toEqual(["Every article gets 1-5 tags.\n"]);
    expect(await tags.locator("pre.diff del").allTextContents()).toEqual(["Every article gets at least one tag.\n"]);
    const hostile = app.locator("article", { hasText: "hostile-text" });
    expect(await hostile.locator(".description").textContent()).toBe(`Careful ${HOSTILE}`);
    expect(await hostile.locator("img, script").count()).toBe(0);
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    expect(await frame.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await screenshot(page, "review-app");

    // From the keyboard: the reason field, then Tab to Confirm, then Enter.
    await tags.locator("textarea").focus();
    await page.keyboard.type("Checked the tagging guide.");
    await page.keyboard.press("Tab");
    expect(await tags.locator("button[data-confirm]").evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => tags.locator(".status").textContent()).toBe("Confirmed by rita.");
    const { fact } = await callOk<{ fact: { status: string; statusBy: string; statusReason: string; events: Array<{ kind: string; actor: string }> } }>(writer, "memory_get", { name: "tag-articles" });
    expect([fact.status, fact.statusBy, fact.statusReason]).toEqual(["confirmed", "rita", "Checked the tagging guide."]);
    expect(fact.events.at(-1)).toMatchObject({ kind: "confirmed", actor: "rita" });
    await page.close();
  }, SLOW);

  it("reports a version changed since the app opened, and a deprecation needs its reason", async () => {
    const { page, app } = await openApp(reviewer, reviewer);
    const card = app.locator("article", { hasText: "deploy-order" });
    await card.locator("button[data-deprecate]").click();
    await expect.poll(() => card.locator(".status").textContent()).toContain("Give the reason first");
    await store({ name: "deploy-order", description: "Run migrations before deploying the API or the worker", body: "Why: both read new columns.", version: 1 });
    await card.locator("button[data-confirm]").click();
    await expect.poll(() => card.locator(".status").textContent()).toMatch(/^Not done\. Changed since you opened it\. version 1 of "deploy-order" .* is not the current one/);
    const { fact } = await callOk<{ fact: { status: string; version: number } }>(reviewer, "memory_get", { name: "deploy-order" });
    expect([fact.status, fact.version]).toEqual(["draft", 2]);
    await page.close();
  }, SLOW);

  it("refuses the author's own draft, whatever the app shows", async () => {
    // The host acts as whoever it connected: here the author, shown the reviewer's queue.
    const { page, app } = await openApp(reviewer, writer, "dark");
    const card = app.locator("article", { hasText: "hostile-text" });
    await card.locator("button[data-confirm]").click();
    await expect.poll(() => card.locator(".status").textContent()).toMatch(/^Not done\. You \(blog-writer\) wrote version 1 of "hostile-text", so you may not confirm it/);
    expect((await callOk<{ fact: { status: string } }>(reviewer, "memory_get", { name: "hostile-text" })).fact.status).toBe("draft");
    await page.close();
  }, SLOW);

  it("follows the host's theme", async () => {
    const { page, app } = await openApp(reviewer, reviewer, "light");
    const background = () => app.locator("body").evaluate((b) => getComputedStyle(b).backgroundColor);
    expect(await background()).toBe("rgb(255, 255, 255)");
    await page.evaluate(() => (window as unknown as { setTheme(t: string): Promise<void> }).setTheme("dark"));
    await expect.poll(background).toBe("rgb(31, 31, 31)");
    await screenshot(page, "review-app-dark");
    await page.close();
  }, SLOW);
});

async function screenshot(page: Page, name: string): Promise<void> {
  // Committed images change only on purpose, so normal runs leave the tree clean.
  if (process.env.UPDATE_SCREENSHOTS === "1") await page.screenshot({ path: `docs/${name}.png`, fullPage: true });
}
