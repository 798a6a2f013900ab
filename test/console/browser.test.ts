// The console in a real browser (Debian's chromium via playwright-core) against
// a real service on the embedded database, with real MCP clients as the agents.
// With UPDATE_SCREENSHOTS=1 it also refreshes docs/console/*.png.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as factSql from "../../src/facts/sql.js";
import type { RunningService } from "../../src/serve.js";
import { launchBrowser } from "../support/browser.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startTestService, type TestAgent } from "../support/service.js";

const VIEWPORT = { width: 1280, height: 860 };
/** axe-core, run in the page through the DevTools protocol (the console's CSP allows no inline script, and none is added). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const SLOW = 120_000;

async function screenshot(page: Page, name: string): Promise<void> {
  // Committed images change only on purpose, so normal runs leave the tree clean.
  if (process.env.UPDATE_SCREENSHOTS === "1") await page.screenshot({ path: `docs/console/${name}.png` });
}

describe("console in a browser", () => {
  let t: TestDatabase;
  let service: RunningService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let owner: TestAgent;
  let writer: Client;
  let ownerMcp: Client;
  const dialogs: string[] = [];
  /** Every 404 the browser met (browsers ask for /favicon.ico on every page). */
  const notFound: string[] = [];

  const url = (path: string) => `${service.url}${path}`;
  const text = async (selector: string) => (await page.locator(selector).first().textContent()) ?? "";

  async function signIn(p: Page, token: string): Promise<void> {
    await p.goto(url("/console"));
    await p.locator("#token").fill(token);
    await p.locator("button[type=submit]").click();
    await p.locator("h1").first().waitFor();
  }

  const store = (client: Client, args: Record<string, unknown>) => callOk(client, "memory_store", { type: "project", scope: "shared", ...args });

  beforeAll(async () => {
    t = await createTestDatabase("pglite");
    service = await startTestService(t.db);
    owner = await addAgent(t.db, "owner", { kind: "human", scopes: ["*"] });
    const writerAgent = await addAgent(t.db, "blog-writer", { scopes: ["shared", "blog"] });
    writer = await connectClient(service.mcpUrl, writerAgent.token, "blog-writer");
    ownerMcp = await connectClient(service.mcpUrl, owner.token, "owner-desktop");
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: VIEWPORT });
    page = await context.newPage();
    page.on("response", (r) => {
      if (r.status() === 404) notFound.push(r.url());
    });
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      // The console asks before revoking a token (data-ask): say yes; anything else is a finding.
      void (d.type() === "confirm" && d.message().startsWith("Revoke token") ? d.accept() : d.dismiss());
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.drop().catch(() => undefined);
  });

  it("sends a visitor to sign-in and signs a human in to the review queue", async () => {
    await page.goto(url("/console"));
    expect(page.url()).toContain("/console/sign-in");
    await screenshot(page, "sign-in");
    await signIn(page, owner.token);
    expect(page.url()).toBe(url("/console"));
    expect(await text("h1")).toContain("Review queue");
  }, SLOW);

  it("confirms an agent's draft from the keyboard, recorded as the human", async () => {
    await store(writer, { name: "deploy-needs-migrations", description: "Run migrations before deploying the API", body: "The API refuses to start on an old schema.\nRun `npm run migrate` first." });
    await store(writer, { name: "qiita-tag-limit", scope: "blog", type: "feedback", description: "Qiita posts take at most 5 tags", body: "Qiita accepts at most 5 tags per post.\nPick the five most specific tags." });
    await store(writer, { name: "qiita-tag-limit", scope: "blog", type: "feedback", version: 1, description: "Qiita posts take at most 5 tags", body: "Qiita accepts at most 5 tags per post.\nPick the five most specific tags; drop generic ones like 'programming'." });
    await page.goto(url("/console"));
    expect(await text("[data-count]")).toBe("2");
    expect(await text("#review-blog-qiita-tag-limit")).toContain("Changes since version 1");
    await screenshot(page, "review-queue");
    // The first (oldest) item is marked on load, so c confirms it; focus stays at the
    // top of the page, so the first Tab reaches the skip link (it went past it before).
    expect(await page.locator("[data-item].current").getAttribute("id")).toBe("review-shared-deploy-needs-migrations");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.className)).toBe("skip-link");
    await page.keyboard.press("c");
    await page.locator(".notice-ok").waitFor();
    expect(await text(".notice-ok")).toContain('Confirmed "deploy-needs-migrations"');
    const { fact } = await callOk<{ fact: { status: string; statusBy: string } }>(writer, "memory_get", { name: "deploy-needs-migrations" });
    expect(fact).toMatchObject({ status: "confirmed", statusBy: "owner" });
  }, SLOW);

  it("refuses a stale version: the page says it changed since it was opened", async () => {
    await page.goto(url("/console"));
    const item = page.locator("#review-blog-qiita-tag-limit");
    await item.waitFor();
    await store(writer, { name: "qiita-tag-limit", scope: "blog", type: "feedback", version: 2, description: "Qiita posts take at most 5 tags", body: "Changed again while the reviewer was reading." });
    await item.locator("[data-confirm]").click();
    await page.locator(".notice-error").waitFor();
    expect(await text(".notice-error")).toContain("changed since you opened it");
    const { fact } = await callOk<{ fact: { status: string; version: number } }>(writer, "memory_get", { name: "qiita-tag-limit", scope: "blog" });
    expect(fact).toMatchObject({ status: "draft", version: 3 });
  }, SLOW);

  it("deprecates with a reason from the keyboard (d, type, Enter) and shows it in the fact's history, with the agents that read it", async () => {
    // An agent reads the fact (it also read it once above, with memory_get): its receipts show on the fact's page ("Read by").
    await callOk(writer, "memory_recall", { keywords: ["Qiita tags"] });
    await callOk(writer, "memory_get", { name: "qiita-tag-limit", scope: "blog" });
    await service.deps.receipts.flush();
    await page.goto(url("/console"));
    await page.locator("#review-blog-qiita-tag-limit").waitFor();
    await page.keyboard.press("d");
    expect(await page.evaluate(() => document.activeElement?.hasAttribute("data-reason"))).toBe(true);
    await page.keyboard.type("Qiita raised the limit to 10 tags in 2026.");
    await page.keyboard.press("Enter");
    await page.locator(".notice-ok").waitFor();
    expect(await text(".notice-ok")).toContain("One agent that read it since its last confirmation is told at its next recall");
    await page.goto(url("/console/facts/blog/qiita-tag-limit"));
    const row = page.locator('tr[data-event="deprecated"]');
    expect(await row.textContent()).toContain("Qiita raised the limit to 10 tags in 2026.");
    expect(await row.textContent()).toContain("owner");
    const reader = page.locator('[data-read-by] tr[data-reader="blog-writer"]');
    expect(await reader.locator("td").allTextContents()).toEqual(["blog-writer", "3", expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/), "3"]);
    await screenshot(page, "fact");
  }, SLOW);

  it("redacts a version from the keyboard: the form opens with Enter, needs a reason, and the page then lists the tombstone", async () => {
    await store(writer, { name: "vendor-phone", description: "Vendor contact", body: "Call Mrs. Example at 555-0100 for the dock." });
    await store(writer, { name: "vendor-desk", description: "The vendor's desk", body: "Ask at the front desk.", supersedes: "vendor-phone" });
    await page.goto(url("/console/facts/shared/vendor-phone"));
    expect(await text("[data-links]")).toContain("Proposed replacements (drafts): shared/vendor-desk");
    await page.locator("[data-redact] summary").focus();
    await page.keyboard.press("Enter");
    await page.locator("#redact-reason").focus();
    await page.keyboard.type("A person's phone number.");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.locator(".notice-ok").waitFor();
    expect(await text("pre.body")).toBe("[redacted]");
    expect(await text("[data-redactions]")).toContain("Version 1 redacted by owner");
    expect(await page.content()).not.toContain("555-0100");
    await screenshot(page, "redaction");
  }, SLOW);

  it("re-confirms a stale fact: marked with its age in the queue, recorded as a new review by the human", async () => {
    await store(writer, { name: "rollback-keeps-data", description: "Rollbacks need --keep-data", body: "Without --keep-data a rollback wipes the job queue." });
    // Confirmed by the owner 240 days ago, with memory_promote's statement (as test/facts/stale.test.ts makes a fact stale).
    const ownerId = (await t.db.query<{ id: number }>("select id from agents where name = 'owner'")).rows[0]!.id;
    const factId = (await t.db.query<{ id: number }>("select id from facts where name = 'rollback-keeps-data'")).rows[0]!.id;
    await t.db.query(factSql.PROMOTE_FACT, [factId, "confirmed", ownerId, "Checked the runbook.", "draft", new Date(Date.now() - 240 * 86_400_000)]);
    await page.goto(url("/console"));
    const item = page.locator("#stale-shared-rollback-keeps-data");
    expect(await item.locator("[data-stale-note]").textContent()).toContain("stale — last reviewed 240 days ago");
    await screenshot(page, "review-stale");
    await item.locator("[data-reason]").fill("Rolled back on staging today: still true.");
    await item.locator("[data-confirm]").click();
    await page.locator(".notice-ok").waitFor();
    expect(await text(".notice-ok")).toContain('Confirmed "rollback-keeps-data"');
    expect(await page.locator("#stale-shared-rollback-keeps-data").count()).toBe(0);
    const { fact } = await callOk<{ fact: { status: string; statusBy: string; events: Array<Record<string, unknown>> } }>(writer, "memory_get", { name: "rollback-keeps-data" });
    expect(fact).toMatchObject({ status: "confirmed", statusBy: "owner" });
    expect(fact.events.at(-1)).toMatchObject({ kind: "confirmed", actor: "owner", from: "confirmed", to: "confirmed", reason: "Rolled back on staging today: still true." });
  }, SLOW);

  it("shows the self-approval refusal for one's own draft", async () => {
    await store(ownerMcp, { name: "owner-own-note", description: "A note the owner wrote over MCP", body: "Only someone else may confirm it." });
    await page.goto(url("/console/facts/shared/owner-own-note"));
    await page.locator("[data-confirm]").click();
    await page.locator(".notice-error").waitFor();
    expect(await text(".notice-error")).toContain("you may not confirm it");
  }, SLOW);

  it("renders a hostile fact literally: no dialog, no script, no image", async () => {
    const body = `<script>window.__pwned = 1; alert("script")</script>\n<img src=x onerror="window.__pwned = 2; alert('img')">`;
    await store(writer, { name: "hostile-fact", description: `<b onmouseover=alert(3)>bold</b> "quoted" & more`, body });
    for (const path of ["/console", "/console/facts?q=pwned", "/console/facts/shared/hostile-fact"]) {
      await page.goto(url(path));
      await page.locator("main").waitFor();
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator("main img, main b, main script").count()).toBe(0);
    }
    expect(await text("main pre")).toContain('<script>window.__pwned = 1; alert("script")</script>');
    expect(dialogs).toEqual([]);
  }, SLOW);

  it("refuses a cross-site form POST and changes nothing", async () => {
    await store(writer, { name: "cross-site-target", description: "A draft an attacker wants confirmed", body: "Nobody reviewed this." });
    // An attacker page on another origin (same host, other port) posting to the console.
    const attacker: Server = createServer((_req, res) => {
      res.setHeader("Content-Type", "text/html");
      res.end(
        `<form id="f" method="post" action="${url("/console/review")}">` +
          `<input name="name" value="cross-site-target"><input name="scope" value="shared"><input name="version" value="1">` +
          `<input name="to" value="confirmed"><input name="reason" value="pwned"><input name="csrf" value="guess"></form>` +
          `<script>document.getElementById("f").submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", () => resolve()));
    try {
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      await page.waitForURL(url("/console/review"));
      expect(await text("main")).toContain("Refused");
    } finally {
      attacker.close();
    }
    const { fact } = await callOk<{ fact: { status: string } }>(writer, "memory_get", { name: "cross-site-target" });
    expect(fact.status).toBe("draft");
  }, SLOW);

  it("issues a token in the console that works over MCP; revoking it refuses the next call (401) and ends a human's console session", async () => {
    await page.goto(url("/console/agents"));
    await page.locator("#agent-name").fill("deployer");
    await page.locator("#agent-scopes").fill("shared, deploy");
    // One step: adding the agent shows its first token with each client's settings.
    await page.locator("form[action='/console/agents'] button[type=submit]").click();
    await page.locator("text=Agent deployer created with its first token").waitFor();
    const token = ((await page.locator("[data-token]").textContent()) ?? "").trim();
    expect(token).toMatch(/^amk_/);
    expect(await text("#issued-claude-code")).toContain(`claude mcp add --transport http agent-memory ${service.mcpUrl}`);
    expect(JSON.parse(await text("#issued-vscode"))).toEqual({ servers: { "agent-memory": { type: "http", url: service.mcpUrl, headers: { Authorization: `Bearer ${token}` } } } });
    expect(JSON.parse(await text("#issued-claude-desktop")).mcpServers["agent-memory"].env).toEqual({ AGENT_MEMORY_AUTH: `Bearer ${token}` });
    await screenshot(page, "token-issued");
    // Each snippet's copy button is reachable from the keyboard.
    await page.locator("button[data-copy='issued-cursor']").focus();
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-copy"))).toBe("issued-cursor");

    const deployer = await connectClient(service.mcpUrl, token, "deployer");
    expect(await callOk(deployer, "whoami")).toMatchObject({ name: "deployer" });
    await page.goto(url("/console/agents/deployer"));
    await page.locator("form[action$='/revoke'] button").first().click();
    await page.locator("text=Token revoked").waitFor();
    expect(dialogs.at(-1)).toMatch(/^Revoke token \d+ of deployer\? Clients using it are refused from their next call\.$/);
    await expect(callOk(deployer, "whoami")).rejects.toThrow(/401|nauthori|invalid_token/i);
    const raw = await fetch(service.mcpUrl, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(raw.status).toBe(401);
    await deployer.close().catch(() => undefined);

    // A human's console session ends with its token.
    await page.goto(url("/console/agents"));
    await page.locator("#agent-name").fill("reviewer");
    await page.locator("#agent-kind").selectOption("human");
    await page.locator("form[action='/console/agents'] button[type=submit]").click();
    await page.locator("text=Agent reviewer created with its first token").waitFor();
    const humanToken = ((await page.locator("[data-token]").textContent()) ?? "").trim();
    const other = await browser.newContext({ viewport: VIEWPORT });
    try {
      const reviewerPage = await other.newPage();
      await signIn(reviewerPage, humanToken);
      expect(await reviewerPage.locator("h1").first().textContent()).toContain("Review queue");
      await page.goto(url("/console/agents/reviewer"));
      await page.locator("form[action$='/revoke'] button").first().click();
      await page.locator("text=Token revoked").waitFor();
      await reviewerPage.reload();
      expect(reviewerPage.url()).toContain("/console/sign-in?note=ended");
      expect(await reviewerPage.locator(".notice").first().textContent()).toContain("session has ended");
    } finally {
      await other.close();
    }
    await page.goto(url("/console/agents"));
    await screenshot(page, "agents");
  }, SLOW);

  it("shows the graph neighbourhood, the ledger and the activity feed", async () => {
    await callOk(writer, "create_entities", {
      entities: [
        { name: "agent-memory", entityType: "project", observations: ["MCP memory service for agent teams", "Runs on Postgres or embedded PGlite"] },
        { name: "Postgres", entityType: "database", observations: ["version 15"] },
        { name: "PGlite", entityType: "database", observations: ["Postgres compiled to WASM"] },
        { name: "MCP", entityType: "protocol", observations: [] },
        { name: "Claude Code", entityType: "client", observations: [] },
      ],
    });
    await callOk(writer, "create_relations", {
      relations: [
        { from: "agent-memory", to: "Postgres", relationType: "stores data in" },
        { from: "agent-memory", to: "PGlite", relationType: "embeds" },
        { from: "agent-memory", to: "MCP", relationType: "speaks" },
        { from: "Claude Code", to: "MCP", relationType: "speaks" },
        { from: "PGlite", to: "Postgres", relationType: "is a build of" },
      ],
    });
    await callOk(writer, "ledger_claim", { action: "publish_qiita", target: "deploy-notes" });
    await callOk(writer, "ledger_record", { action: "publish_qiita", target: "deploy-notes", evidence: "https://qiita.com/example/items/1" });
    await page.goto(url("/console/graph/shared/agent-memory"));
    expect(await page.locator("svg.graph circle").count()).toBe(5);
    // Arrowheads (an SVG marker, allowed by the CSP) on every line, and a picture no bigger than what it holds.
    expect(await page.locator("svg.graph line[marker-end='url(#am-arrow)']").count()).toBe(5);
    expect(await page.locator("svg.graph marker#am-arrow path").count()).toBe(1);
    const box = await page.locator("svg.graph").boundingBox();
    expect(box!.width).toBeLessThan(960);
    expect(box!.height).toBeLessThan(640);
    expect(await page.locator("svg.graph").textContent()).toContain("Claude Code");
    await screenshot(page, "graph");
    await page.goto(url("/console/ledger"));
    expect(await text("main table")).toContain("publish_qiita");
    await screenshot(page, "ledger");
    await page.goto(url("/console/activity"));
    expect(await page.locator('tr[data-area="graph"]').count()).toBeGreaterThan(0);
    await screenshot(page, "activity");
  }, SLOW);

  it("shows memory health: the figures by scope and the charts, drawn without script", async () => {
    await page.goto(url("/console/health"));
    expect(await text("[data-health]")).toContain("shared");
    expect(await page.locator("svg.chart rect.chart-bar").count()).toBeGreaterThan(0);
    expect(await page.locator("svg script").count()).toBe(0);
    // Reviews per agent: a legend for the two colours, and every label inside the picture.
    const reviews = page.locator("svg[aria-labelledby=reviews-title]");
    expect(await reviews.locator(".chart-legend text").allTextContents()).toEqual(["confirmed", "deprecated"]);
    const overflow = await reviews.evaluate((svg) => {
      const width = (svg as SVGSVGElement).viewBox.baseVal.width;
      return Array.from(svg.querySelectorAll("text")).map((t) => ({ text: t.textContent, left: t.getBBox().x, right: t.getBBox().x + t.getBBox().width })).filter((t) => t.left < 0 || t.right > width);
    });
    expect(overflow).toEqual([]);
    await screenshot(page, "health");
  }, SLOW);

  it("has no WCAG 2 A/AA violation that axe-core finds, on every page", async () => {
    const pages = [
      "/console",
      "/console/facts",
      "/console/facts/shared/deploy-needs-migrations",
      "/console/graph",
      "/console/graph/shared/agent-memory",
      "/console/ledger",
      "/console/activity",
      "/console/health",
      "/console/agents",
    ];
    const found: string[] = [];
    for (const path of pages) {
      await page.goto(url(path));
      await page.evaluate(AXE_SOURCE);
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run(options: unknown): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
        const result = await axe.run({ runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] } });
        return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join("; ")}`);
      });
      found.push(...violations.map((v) => `${path}: ${v}`));
    }
    expect(found).toEqual([]);
  }, SLOW);

  it("keeps every page within a 390-pixel phone's width, the navigation included", async () => {
    const phone = await context.browser()!.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const p = await phone.newPage();
      await signIn(p, owner.token);
      for (const path of ["/console", "/console/facts", "/console/health", "/console/graph/shared/agent-memory"]) {
        await p.goto(url(path));
        const wide = await p.evaluate(() => ({ page: document.documentElement.scrollWidth, nav: Math.max(...Array.from(document.querySelectorAll("header a, header button, nav a")).map((e) => e.getBoundingClientRect().right)) }));
        expect(wide.nav, `${path}: the navigation's right edge`).toBeLessThanOrEqual(390);
        expect(wide.page, `${path}: the page's width`).toBeLessThanOrEqual(390);
      }
      if (process.env.UPDATE_SCREENSHOTS === "1") await p.screenshot({ path: "docs/console/phone.png" });
      // A fact's history and the ledger: every row a block of labelled lines, so the reason, the target, the
      // actor and the evidence are on the screen, not inside a table scrolled sideways.
      const onScreen = (selector: string) =>
        p.evaluate((sel) => {
          const cells = Array.from(document.querySelectorAll<HTMLElement>(sel)).filter((c) => c.textContent !== "");
          return { cells: cells.length, right: Math.max(0, ...cells.map((c) => c.getBoundingClientRect().right)), page: document.documentElement.scrollWidth, scrolled: Array.from(document.querySelectorAll("table.stack")).some((t) => t.scrollWidth > t.clientWidth + 1) };
        }, selector);
      await p.goto(url("/console/facts/blog/qiita-tag-limit"));
      const history = await onScreen('tr[data-event] td[data-label="Reason"]');
      expect(history.cells).toBeGreaterThan(0);
      expect(history).toMatchObject({ page: expect.any(Number), scrolled: false });
      expect(history.right).toBeLessThanOrEqual(390);
      expect(history.page).toBeLessThanOrEqual(390);
      await p.goto(url("/console/ledger"));
      for (const label of ["Target", "Actor", "Evidence / note / reason"]) {
        const ledger = await onScreen(`table.stack td[data-label="${label}"]`);
        expect(ledger.cells, label).toBeGreaterThan(0);
        expect(ledger.right, label).toBeLessThanOrEqual(390);
        expect(ledger.scrolled, label).toBe(false);
        expect(ledger.page, label).toBeLessThanOrEqual(390);
      }
      // Labelled as the wide table's headers say.
      expect(await p.evaluate(() => getComputedStyle(document.querySelector('table.stack td[data-label="Target"]')!, "::before").content)).toBe('"Target: "');
    } finally {
      await phone.close();
    }
  }, SLOW);

  it("starts every page with a skip link (Tab, Enter: focus in main), aligns filter fields, and meets no 404", async () => {
    await page.goto(url("/console/facts"));
    await page.keyboard.press("Tab");
    const skip = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const r = el.getBoundingClientRect();
      return { cls: el.className, text: el.textContent, top: r.top, bottom: r.bottom };
    });
    expect(skip).toMatchObject({ cls: "skip-link", text: "Skip to content" });
    // Shown when focused: inside the viewport.
    expect(skip.top).toBeGreaterThanOrEqual(0);
    expect(skip.bottom).toBeLessThan(VIEWPORT.height);
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    // Off screen again once focus left it.
    expect((await page.locator(".skip-link").boundingBox())!.y).toBeLessThan(0);

    // Select boxes sat ~2px lower than the text inputs beside them.
    const rect = (sel: string) => page.locator(sel).boundingBox();
    const [input, select] = [await rect("#f-scope"), await rect("#f-status")];
    expect(Math.abs(input!.y - select!.y)).toBeLessThan(0.5);
    expect(Math.abs(input!.height - select!.height)).toBeLessThan(0.5);

    // The icon every page links to loads as an image under the page's CSP (img-src 'self').
    const icon = await page.evaluate(
      () =>
        new Promise<{ width: number } | string>((resolve) => {
          const img = new Image();
          img.onload = () => resolve({ width: img.naturalWidth });
          img.onerror = () => resolve("icon did not load");
          img.src = document.querySelector<HTMLLinkElement>("link[rel=icon]")!.href;
        }),
    );
    expect(icon).toEqual({ width: 32 });
    expect(notFound).toEqual([]);
  }, SLOW);

  it("sends a signed-out or expired session to sign-in", async () => {
    await page.goto(url("/console/facts"));
    await screenshot(page, "facts");
    await page.locator(".signout button").click();
    await page.locator("#token").waitFor();
    expect(await text(".notice")).toContain("signed out");
    await page.goto(url("/console/facts"));
    expect(page.url()).toContain("/console/sign-in");

    await signIn(page, owner.token);
    await t.db.query("update console_sessions set created_at = now() - interval '2 days', expires_at = now() - interval '1 second' where revoked_at is null");
    await page.goto(url("/console/facts"));
    expect(page.url()).toContain("/console/sign-in?note=ended");
  }, SLOW);
});
