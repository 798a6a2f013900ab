// The ledger in the browser, read-only: the functions behind ledger_list and
// the CLI's `ledger verify` / `ledger export`, plus the claims held now.
import { once } from "node:events";
import type { Request, Router } from "express";
import type { AppDeps } from "../../app-deps.js";
import { DomainError } from "../../errors.js";
import { exportLedger, verifyLedger } from "../../ledger/audit.js";
import { EVENT_KINDS, type EventKind, eventJson } from "../../ledger/event.js";
import { listLedger, listOpenClaims } from "../../ledger/store.js";
import { sendPage, statusOf } from "../render.js";
import { pageContext } from "../session-middleware.js";
import { LedgerPage, type LedgerFilters, VerifyPage } from "../views/ledger.js";

export const LEDGER_PAGE_SIZE = 50;
const CLAIMS_SHOWN = 100;

const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");

function readFilters(req: Request): LedgerFilters {
  return { action: str(req.query.action), target: str(req.query.target), actor: str(req.query.actor), kind: str(req.query.kind), since: str(req.query.since) };
}

export function registerLedger(router: Router, deps: AppDeps): void {
  router.get("/ledger", async (req, res) => {
    const filters = readFilters(req);
    const ctx = pageContext(res, "ledger");
    const claims = await listOpenClaims(deps.db, CLAIMS_SHOWN);
    try {
      const page = await listLedger(deps.db, {
        ...(filters.action ? { action: filters.action } : {}),
        ...(filters.target ? { target: filters.target } : {}),
        ...(filters.actor ? { actor: filters.actor } : {}),
        ...((EVENT_KINDS as readonly string[]).includes(filters.kind) ? { kind: filters.kind as EventKind } : {}),
        ...(filters.since ? { since: filters.since } : {}),
        ...(str(req.query.cursor) ? { cursor: str(req.query.cursor) } : {}),
        limit: LEDGER_PAGE_SIZE,
      }, { scanMax: deps.config.limits.listScanMax });
      let nextHref: string | undefined;
      if (page.nextCursor) {
        const params = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== ""));
        params.set("cursor", page.nextCursor);
        nextHref = `/console/ledger?${params.toString()}`;
      }
      sendPage(res, 200, <LedgerPage ctx={ctx} filters={filters} events={page.events} claims={claims} nextHref={nextHref} scanCut={page.scanCut} />);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      sendPage(res, statusOf(error), <LedgerPage ctx={ctx} filters={filters} events={[]} claims={claims} notice={error.message} />);
    }
  });

  router.get("/ledger/verify", async (_req, res) => {
    const report = await verifyLedger(deps.db);
    sendPage(res, 200, <VerifyPage ctx={pageContext(res, "ledger")} report={report} />);
  });

  // The same JSON Lines as `agent-memory ledger export`, streamed with backpressure.
  router.get("/ledger/export", async (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Content-Type", "application/x-ndjson; charset=utf-8");
    res.setHeader("Content-Disposition", 'attachment; filename="ledger.jsonl"');
    await exportLedger(deps.db, async (event) => {
      if (!res.write(`${JSON.stringify(eventJson(event))}\n`)) await once(res, "drain");
    });
    res.end();
  });
}
