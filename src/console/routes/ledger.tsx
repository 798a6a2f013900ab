// The ledger in the browser: the functions behind ledger_list and the CLI's
// `ledger verify` / `ledger export`, the claims held now, and voiding records
// (the CLI's `ledger void`, one or many at once, by the signed-in human).
import { once } from "node:events";
import type { Request, Response, Router } from "express";
import type { AppDeps } from "../../app-deps.js";
import { EVENT_KINDS, eventJson, type EventKind, exportLedger, listLedger, listOpenClaims, verifyLedger, voidLedger } from "../../ledger/index.js";
import { onlyRefusals, sendPage, statusOf } from "../render.js";
import { pageContext, sessionOf } from "../session-middleware.js";
import { BASE } from "../views/layout.js";
import { LedgerPage, type LedgerFilters, type LedgerNotice, VerifyPage } from "../views/ledger.js";

const LEDGER_PAGE_SIZE = 50;
const CLAIMS_SHOWN = 100;
/** Records one void form may name: a page's worth, with room. */
const VOID_MAX_RECORDS = 100;

const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");

function readFilters(req: Request): LedgerFilters {
  return { action: str(req.query.action), target: str(req.query.target), actor: str(req.query.actor), kind: str(req.query.kind), since: str(req.query.since) };
}

interface VoidForm {
  reason: string;
  records: Array<{ seq: number; action: string; target: string }>;
}

/** The records a void form names ("[seq, action, target]" each, as the page wrote them), or what is wrong with it. */
function readVoidForm(body: Record<string, unknown>): VoidForm | string {
  const raw = body.record === undefined ? [] : Array.isArray(body.record) ? body.record : [body.record];
  const reason = str(body.reason);
  const problems: string[] = [];
  if (raw.length === 0) problems.push("Select the records to void.");
  if (raw.length > VOID_MAX_RECORDS) problems.push(`Void at most ${VOID_MAX_RECORDS} records at a time; ${raw.length} were selected.`);
  if (reason === "") problems.push("Give a reason: why these records are wrong (the ledger keeps it with the void).");
  const records: VoidForm["records"] = [];
  for (const value of raw.slice(0, VOID_MAX_RECORDS)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(value));
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed) || !Number.isInteger(parsed[0]) || typeof parsed[1] !== "string" || typeof parsed[2] !== "string") {
      problems.push("The form lost which records you selected; reload the page.");
      break;
    }
    records.push({ seq: parsed[0] as number, action: parsed[1], target: parsed[2] });
  }
  return problems.length > 0 ? problems.join(" ") : { reason, records };
}

export function registerLedger(router: Router, deps: AppDeps): void {
  const render = async (req: Request, res: Response, status: number, notices: LedgerNotice[] = []) => {
    const filters = readFilters(req.method === "GET" ? req : ({ query: req.body ?? {} } as Request));
    const ctx = pageContext(res, "ledger");
    const claims = await listOpenClaims(deps.db, CLAIMS_SHOWN);
    try {
      const page = await listLedger(deps.db, {
        ...(filters.action ? { action: filters.action } : {}),
        ...(filters.target ? { target: filters.target } : {}),
        ...(filters.actor ? { actor: filters.actor } : {}),
        ...((EVENT_KINDS as readonly string[]).includes(filters.kind) ? { kind: filters.kind as EventKind } : {}),
        ...(filters.since ? { since: filters.since } : {}),
        ...(req.method === "GET" && str(req.query.cursor) ? { cursor: str(req.query.cursor) } : {}),
        limit: LEDGER_PAGE_SIZE,
      }, { scanMax: deps.config.limits.listScanMax });
      let nextHref: string | undefined;
      if (page.nextCursor) {
        const params = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== ""));
        params.set("cursor", page.nextCursor);
        nextHref = `/console/ledger?${params.toString()}`;
      }
      sendPage(res, status, <LedgerPage ctx={ctx} filters={filters} events={page.events} claims={claims} nextHref={nextHref} scanCut={page.scanCut} notices={notices} />);
    } catch (error) {
      onlyRefusals(error);
      sendPage(res, statusOf(error), <LedgerPage ctx={ctx} filters={filters} events={[]} claims={claims} notices={[...notices, { kind: "error", text: error.message }]} />);
    }
  };

  router.get("/ledger", async (req, res) => {
    const voided = Number(str(req.query.voided));
    await render(req, res, 200, Number.isInteger(voided) && voided > 0 ? [{ kind: "ok", text: `Voided ${voided} record(s).` }] : []);
  });

  // Each record through voidLedger, the CLI's code path: only a human, only in
  // scopes they may write, and only the record they saw (by its ledger number).
  router.post("/ledger/void", async (req, res) => {
    const form = readVoidForm(req.body as Record<string, unknown>);
    if (typeof form === "string") return render(req, res, 400, [{ kind: "error", text: `${form} Nothing was voided.` }]);
    const operator = sessionOf(res).caller;
    const refused: string[] = [];
    let voided = 0;
    for (const r of form.records) {
      try {
        await voidLedger(deps.db, operator, { action: r.action, target: r.target, reason: form.reason, recordSeq: r.seq }, deps.config.ledger, deps.secrets);
        voided++;
      } catch (error) {
        onlyRefusals(error);
        refused.push(`#${r.seq}: ${error.message}`);
      }
    }
    deps.logger.info({ agent: operator.name, console: "ledger-void", voided, refused: refused.length }, "console ledger void");
    if (refused.length === 0) {
      const back = new URLSearchParams(Object.entries(readFilters({ query: req.body ?? {} } as Request)).filter(([, v]) => v !== ""));
      back.set("voided", String(voided));
      return res.redirect(303, `${BASE}/ledger?${back.toString()}`);
    }
    await render(req, res, 409, [
      ...(voided > 0 ? [{ kind: "ok" as const, text: `Voided ${voided} record(s).` }] : []),
      { kind: "error", text: `Not voided (${refused.length}):\n${refused.join("\n")}` },
    ]);
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
