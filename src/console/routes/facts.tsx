// Facts in the browser: the same recall and listing functions as memory_recall
// and memory_list (so the same scope filter), one fact with its history as
// memory_get shows it, and review actions through memory_promote's code path.
import type { Request, Response, Router } from "express";
import type { AppDeps } from "../../app-deps.js";
import { mayRedact } from "../../auth/scopes.js";
import { FACT_STATUSES, FACT_TYPES, factReaders, type FactStatus, type FactType, getFact, listFacts, MAX_KEYWORDS, recallFacts, redactFactVersion } from "../../facts/index.js";
import { onlyRefusals, sendPage, statusOf } from "../render.js";
import { pageContext, sessionOf } from "../session-middleware.js";
import { FactPage, type FactFilters, factHref, FactsPage } from "../views/facts.js";
import { promoteFromForm, readPromoteForm, toldQuery, toldText } from "./review.js";

const FACTS_PAGE_SIZE = 50;

const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");

function readFilters(req: Request): FactFilters {
  return { q: str(req.query.q), scope: str(req.query.scope), status: str(req.query.status), type: str(req.query.type), author: str(req.query.author) };
}

function pageHref(filters: FactFilters, cursor: string): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) params.set(k, v);
  params.set("cursor", cursor);
  return `/console/facts?${params.toString()}`;
}

const DONE: Record<string, string> = { confirmed: "Confirmed.", deprecated: "Deprecated.", redacted: "Redacted: the version's text is gone; the tombstone is listed under Redactions." };

export function registerFacts(router: Router, deps: AppDeps): void {
  router.get("/facts", async (req, res) => {
    const filters = readFilters(req);
    const caller = sessionOf(res).caller;
    const status = (FACT_STATUSES as readonly string[]).includes(filters.status) ? (filters.status as FactStatus) : undefined;
    const type = (FACT_TYPES as readonly string[]).includes(filters.type) ? (filters.type as FactType) : undefined;
    const scope = filters.scope || undefined;
    const ctx = pageContext(res, "facts");
    try {
      if (filters.q) {
        const keywords = filters.q.split(/\s+/).filter(Boolean).slice(0, MAX_KEYWORDS);
        const result = await recallFacts(deps.db, caller, { keywords, status, type, scope, limit: 50 });
        // Recall has no author filter; applied to the hits shown.
        const hits = filters.author ? result.hits.filter((h) => h.author === filters.author) : result.hits;
        return sendPage(res, 200, <FactsPage ctx={ctx} filters={filters} facts={hits} total={filters.author ? hits.length : result.total} />);
      }
      const cursor = str(req.query.cursor) || undefined;
      const result = await listFacts(deps.db, caller, { status, type, scope, author: filters.author || undefined, limit: FACTS_PAGE_SIZE, cursor }, { staleAfterDays: deps.config.facts.staleAfterDays, scanMax: deps.config.limits.listScanMax });
      sendPage(res, 200, <FactsPage ctx={ctx} filters={filters} facts={result.facts} nextHref={result.nextCursor ? pageHref(filters, result.nextCursor) : undefined} scanCut={result.scanCut} />);
    } catch (error) {
      onlyRefusals(error);
      sendPage(res, statusOf(error), <FactsPage ctx={ctx} filters={filters} facts={[]} notice={{ kind: "error", text: error.message }} />);
    }
  });

  const renderFact = async (req: Request, res: Response, status: number, notice?: { kind: "ok" | "error"; text: string }) => {
    const before = /^\d{1,9}$/.test(str(req.query.before)) ? Number(req.query.before) : undefined;
    const fact = await getFact(deps.db, sessionOf(res).caller, { name: String(req.params.name), scope: String(req.params.scope), versionsBefore: before });
    const caller = sessionOf(res).caller;
    const readBy = await factReaders(deps.db, caller, fact);
    sendPage(res, status, <FactPage ctx={pageContext(res, "facts")} fact={fact} notice={notice} mayRedact={mayRedact(caller, fact.scope)} readBy={readBy} />);
  };

  const showRefusal = (req: Request, res: Response, error: unknown) => {
    onlyRefusals(error);
    // Unreadable and missing facts get the same page: their existence is not
    // revealed. Said for a person (the tools' message names memory_recall).
    const text =
      error.code === "not_found"
        ? `No fact named "${String(req.params.name)}" in scope "${String(req.params.scope)}" that you can read. Names are exact: search the facts by keyword above.`
        : error.message;
    sendPage(res, statusOf(error), <FactsPage ctx={pageContext(res, "facts")} filters={readFilters({ query: {} } as Request)} facts={[]} notice={{ kind: "error", text }} />);
  };

  router.get("/facts/:scope/:name", async (req, res) => {
    const done = typeof req.query.done === "string" && DONE[req.query.done] ? `${DONE[req.query.done]}${toldText(req)}` : undefined;
    try {
      await renderFact(req, res, 200, done ? { kind: "ok", text: done } : undefined);
    } catch (error) {
      showRefusal(req, res, error);
    }
  });

  router.post("/facts/:scope/:name/redact", async (req, res) => {
    const scope = String(req.params.scope);
    const name = String(req.params.name);
    const body = req.body as Record<string, unknown>;
    const version = typeof body.version === "string" && /^\d{1,9}$/.test(body.version) ? Number(body.version) : 0;
    try {
      await redactFactVersion(deps.db, sessionOf(res).caller, { scope, name, version, reason: typeof body.reason === "string" ? body.reason : "" }, { secrets: deps.secrets });
      return res.redirect(303, `${factHref({ scope, name })}?done=redacted`);
    } catch (error) {
      onlyRefusals(error);
      try {
        await renderFact(req, res, statusOf(error), { kind: "error", text: error.message });
      } catch (again) {
        showRefusal(req, res, again);
      }
    }
  });

  router.post("/facts/:scope/:name/promote", async (req, res) => {
    const scope = String(req.params.scope);
    const name = String(req.params.name);
    const form = { ...readPromoteForm(req.body as Record<string, unknown>), name, scope };
    const refused = await promoteFromForm(deps, res, form);
    if (!("status" in refused)) return res.redirect(303, `${factHref({ scope, name })}?done=${form.to}${toldQuery(refused.told)}`);
    try {
      await renderFact(req, res, refused.status, { kind: "error", text: refused.text });
    } catch (error) {
      showRefusal(req, res, error);
    }
  });
}
